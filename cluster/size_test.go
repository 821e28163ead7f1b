package cluster_test

import (
	"strings"
	"testing"

	"github.com/decongestant/decongestant/cluster"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"0", 0, ""},
		{"0M", 0, ""},
		{"629145600", 629145600, ""},
		{"600M", 600 << 20, ""},
		{"600m", 600 << 20, ""},
		{"600MiB", 600 << 20, ""},
		{" 600 mib ", 600 << 20, ""},
		{"512K", 512 << 10, ""},
		{"512KiB", 512 << 10, ""},
		{"1G", 1 << 30, ""},
		{"1GiB", 1 << 30, ""},
		{"1.5G", 1536 << 20, ""},
		{"0.25g", 256 << 20, ""},
		{"-600M", 0, `size "-600M" must not be negative`},
		{"-1", 0, "must not be negative"},
		{"lots", 0, `size "lots" is not bytes or a number with K, M or G`},
		{"", 0, `size "" is not bytes`},
		{"M", 0, `size "M" is not bytes`},
		{"600MB", 0, `size "600MB" is not bytes`}, // decimal or binary? refused, not guessed
		{"600T", 0, `size "600T" is not bytes`},
		{"1e9", 0, `size "1e9" is not bytes`},
		{"0x10", 0, `size "0x10" is not bytes`},
		{"NaN", 0, `size "NaN" is not bytes`},
		{"1.5", 0, "a number of bytes must be whole"},
		{"9000000000G", 0, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := cluster.ParseSize(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSize(%q): %v, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseSize(%q): %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestFormatSize checks the forms and that ParseSize reads every exact one back.
func TestFormatSize(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0"},
		{-5, "-5"},
		{1000, "1000"},
		{512 << 10, "512K"},
		{600 << 20, "600M"},
		{1536 << 20, "1536M"},
		{2 << 30, "2G"},
		{599998464, "572.2M"}, // 600000000 as the kernel rounds it to pages
	}
	for _, tt := range tests {
		got := cluster.FormatSize(tt.in)
		if got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
		if tt.in >= 0 && !strings.Contains(got, ".") {
			if back, err := cluster.ParseSize(got); err != nil || back != tt.in {
				t.Errorf("ParseSize(FormatSize(%d) = %q) = %v, %v", tt.in, got, back, err)
			}
		}
	}
}
