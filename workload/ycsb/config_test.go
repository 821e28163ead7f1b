package ycsb

import (
	"maps"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/workload"
)

func TestParseOptions(t *testing.T) {
	def := DefaultConfig()
	with := func(f func(*Config)) Config {
		c := def
		f(&c)
		return c
	}
	tests := []struct {
		name    string
		opts    map[string]string
		want    Config
		wantErr []string // substrings of the error
	}{
		{name: "defaults", opts: nil, want: def},
		{name: "all options", opts: map[string]string{
			"workload": "workloade", "records": "2000", "fields": "5", "fieldlength": "20",
			"distribution": "uniform", "maxscanlength": "7", "seed": "-3", "collection": "t", "insertstart": "10",
		}, want: Config{Mix: MixE, Records: 2000, Fields: 5, FieldLength: 20, Distribution: Uniform,
			MaxScanLength: 7, Seed: -3, Collection: "t", InsertStart: 10}},
		{name: "YCSB property names", opts: map[string]string{
			"recordcount": "5", "fieldcount": "2", "requestdistribution": "latest", "table": "u",
		}, want: with(func(c *Config) { c.Records, c.Fields, c.Distribution, c.Collection = 5, 2, Latest, "u" })},
		{name: "letter", opts: map[string]string{"workload": "D"}, want: with(func(c *Config) { c.Mix = MixD })},

		{name: "unknown option", opts: map[string]string{"recods": "5"}, wantErr: []string{`"recods"`, "unknown option"}},
		{name: "alias twice", opts: map[string]string{"records": "5", "recordcount": "6"}, wantErr: []string{"records", "twice"}},
		{name: "bad workload", opts: map[string]string{"workload": "g"}, wantErr: []string{"workload", `"g"`}},
		{name: "records not a number", opts: map[string]string{"records": "lots"}, wantErr: []string{"records", `"lots"`}},
		{name: "records zero", opts: map[string]string{"records": "0"}, wantErr: []string{"records", "0"}},
		{name: "fields negative", opts: map[string]string{"fields": "-1"}, wantErr: []string{"fields", "-1"}},
		{name: "fieldlength zero", opts: map[string]string{"fieldlength": "0"}, wantErr: []string{"fieldlength", "0"}},
		{name: "record too big", opts: map[string]string{"fields": "100", "fieldlength": "1000000"}, wantErr: []string{"fieldlength", "1000000"}},
		{name: "bad distribution", opts: map[string]string{"distribution": "hotspot"}, wantErr: []string{"distribution", `"hotspot"`}},
		{name: "maxscanlength zero", opts: map[string]string{"maxscanlength": "0"}, wantErr: []string{"maxscanlength", "0"}},
		{name: "seed not a number", opts: map[string]string{"seed": "1.5"}, wantErr: []string{"seed", `"1.5"`}},
		{name: "empty collection", opts: map[string]string{"collection": ""}, wantErr: []string{"collection"}},
		{name: "dollar collection", opts: map[string]string{"collection": "a$b"}, wantErr: []string{"collection", `"a$b"`}},
		{name: "system collection", opts: map[string]string{"collection": "system.users"}, wantErr: []string{"collection", "system.users"}},
		{name: "insertstart negative", opts: map[string]string{"insertstart": "-1"}, wantErr: []string{"insertstart", "-1"}},
		{name: "insertstart huge", opts: map[string]string{"insertstart": "9223372036854775000"}, wantErr: []string{"insertstart"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOptions(tt.opts)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("ParseOptions(%v) = %+v, want an error", tt.opts, got)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				if _, gerr := ParseOptions(tt.opts); gerr == nil {
					t.Errorf("ParseOptions(%v) succeeded, want an error", tt.opts)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseOptions(%v): %v", tt.opts, err)
			}
			if got != tt.want {
				t.Errorf("ParseOptions(%v) = %+v, want %+v", tt.opts, got, tt.want)
			}
		})
	}
}

func TestValidateZeroConfig(t *testing.T) {
	if err := (Config{}).Validate(); err == nil {
		t.Error("the zero Config validated")
	}
	if _, err := NewGenerator(Config{}); err == nil {
		t.Error("NewGenerator accepted the zero Config")
	}
}

func TestRegistered(t *testing.T) {
	g, err := workload.Configure("ycsb", workload.Shared{Seed: 1}, "--workload", "a", "--maxscanlength", "7")
	if err != nil {
		t.Fatal(err)
	}
	if g.Name() != "ycsb" || g.Mix() != "a" || g.(*Generator).Config().MaxScanLength != 7 {
		t.Errorf("Name, Mix = %q, %q; want ycsb, a", g.Name(), g.Mix())
	}
	if err := g.SetMix("workloadf"); err != nil || g.Mix() != "f" {
		t.Errorf("SetMix(workloadf): %v, Mix = %q", err, g.Mix())
	}
	if err := g.SetMix("z"); err == nil || g.Mix() != "f" {
		t.Errorf("SetMix(z): %v, Mix = %q; want an error and f kept", err, g.Mix())
	}
	if _, err := g.NewWorker(workload.Env{}, 0); err == nil {
		t.Error("NewWorker with an empty Env succeeded")
	}
}

func TestDocument(t *testing.T) {
	g, err := NewGenerator(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	doc := g.Document(7)
	if len(doc) != 11 || doc[0].Key != "_id" || doc[0].Value != Key(7) {
		t.Fatalf("Document(7) starts %v with %d elements, want _id %s and 10 fields", doc[0], len(doc), Key(7))
	}
	for i, e := range doc[1:] {
		v, ok := e.Value.(string)
		if e.Key != fieldNames(10)[i] || !ok || len(v) != 100 {
			t.Fatalf("element %d = %s: %T of %d bytes, want field%d: string of 100", i+1, e.Key, e.Value, len(v), i)
		}
		for _, b := range []byte(v) {
			if b < ' ' || b > '~' {
				t.Fatalf("field %s has non-printable byte %#x", e.Key, b)
			}
		}
	}
	// Regenerable from (seed, keynum); different across keys, fields, seeds.
	if again := g.Document(7); !equalDocs(doc, again) {
		t.Error("Document(7) differs between calls")
	}
	if other := g.Document(8); equalDocs(doc[1:], other[1:]) {
		t.Error("Documents 7 and 8 have the same fields")
	}
	if doc[1].Value == doc[2].Value {
		t.Error("field0 and field1 of document 7 are equal")
	}
	cfg := DefaultConfig()
	cfg.Seed = 2
	g2, err := NewGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if equalDocs(doc, g2.Document(7)) {
		t.Error("document 7 is the same under seeds 1 and 2")
	}
}

func equalDocs(a, b bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSettingsRecorded: the settings the results record follow the
// configuration, the mix's distribution included.
func TestSettingsRecorded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Mix, cfg.Causal = MixD, true
	g, err := NewGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := g.Settings()
	want := map[string]string{"fields": "10", "fieldlength": "100", "distribution": "latest", "causal": "true"}
	if !maps.Equal(got, want) {
		t.Fatalf("settings %v, want %v", got, want)
	}
}
