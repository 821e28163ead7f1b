package registers

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	if err := Defaults().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tt := range []struct {
		name   string
		mutate func(*Config)
		say    string
	}{
		{"no keys", func(c *Config) { c.Keys = 0 }, "keys 0"},
		{"no writers", func(c *Config) { c.Writers = 0 }, "writers 0"},
		{"negative readers", func(c *Config) { c.Readers = -1 }, "readers -1"},
		{"read share 1", func(c *Config) { c.ReadShare = 1 }, "read share 1"},
		{"CAS share over 1", func(c *Config) { c.CASShare = 1.5 }, "CAS share 1.5"},
		{"negative interval", func(c *Config) { c.ReadInterval = -time.Millisecond }, "intervals must not be negative"},
		{"neither duration nor writes", func(c *Config) { c.Duration = 0 }, "positive duration or a number of writes"},
		{"no timeout", func(c *Config) { c.OpTimeout = 0 }, "operation timeout"},
		{"over MongoDB's limit", func(c *Config) { c.DocSize = MaxDocSize }, "must be at most"},
		{"below the register's fields", func(c *Config) { c.DocSize = MinDocSize - 1 }, "below the register's own fields"},
		{"unnamed collection", func(c *Config) { c.Collection = "" }, "must be named"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := Defaults()
			tt.mutate(&c)
			if err := c.Validate(); !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), tt.say) {
				t.Fatalf("err %v, want %q", err, tt.say)
			}
		})
	}
	c := Defaults()
	c.Duration, c.Writes, c.DocSize = 0, 100, MinDocSize
	if err := c.Validate(); err != nil {
		t.Fatalf("writes instead of a duration, smallest padded size: %v", err)
	}
}

// TestPadding: a register padded to size bytes before its log holds
// size-overhead bytes of padding; 0 and the bare fields hold none.
func TestPadding(t *testing.T) {
	for size, want := range map[int]int{0: 0, MinDocSize: 0, 1024: 1024 - overhead} {
		if got := len(padding(size)); got != want {
			t.Errorf("padding(%d): %d bytes, want %d", size, got, want)
		}
	}
	if k := Keys(3); strings.Join(k, ",") != "k1,k2,k3" {
		t.Errorf("keys %v", k)
	}
}
