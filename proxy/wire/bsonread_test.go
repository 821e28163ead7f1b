package wire

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// value is the value of {v: x} as bsoncore reads it.
func value(tb testing.TB, x any) bsoncore.Value {
	tb.Helper()
	return lookup(doc(tb, d("v", x)), "v")
}

func TestIntValueAndTruthy(t *testing.T) {
	tests := []struct {
		name   string
		x      any
		n      int64
		isInt  bool
		truthy bool
	}{
		{"int32", int32(-7), -7, true, true},
		{"int32 zero", int32(0), 0, true, false},
		{"int64", int64(1) << 40, 1 << 40, true, true},
		{"integral double", 3.0, 3, true, true},
		{"double zero", 0.0, 0, true, false},
		{"fractional double", 0.5, 0, false, true},
		{"NaN", math.NaN(), 0, false, true},
		{"double past int64", 1e19, 0, false, true},
		{"true", true, 0, false, true},
		{"false", false, 0, false, false},
		{"string", "1", 0, false, false},
		{"null", nil, 0, false, false},
		{"decimal", bson.NewDecimal128(0, 1), 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := value(t, tt.x)
			if n, ok := intValue(v); n != tt.n || ok != tt.isInt {
				t.Errorf("intValue = %d, %v; want %d, %v", n, ok, tt.n, tt.isInt)
			}
			if got := truthy(v); got != tt.truthy {
				t.Errorf("truthy = %v, want %v", got, tt.truthy)
			}
		})
	}
}

func TestBSONReadersOnMalformedValues(t *testing.T) {
	for _, v := range []bsoncore.Value{
		{Type: bsoncore.TypeString, Data: []byte{1, 0, 0}},                // length cut
		{Type: bsoncore.TypeString, Data: []byte{9, 0, 0, 0, 'a', 0}},     // length past the data
		{Type: bsoncore.TypeString, Data: []byte{0, 0, 0, 0, 0}},          // length 0
		{Type: bsoncore.TypeString, Data: []byte{2, 0, 0, 0, 'a', 'b'}},   // no 0x00
		{Type: bsoncore.TypeString, Data: []byte{0xff, 0xff, 0xff, 0xff}}, // negative
	} {
		if s, ok := strBytes(v); ok {
			t.Errorf("strBytes(%x) = %q, want not ok", v.Data, s)
		}
	}
	for _, v := range []bsoncore.Value{
		{Type: bsoncore.TypeInt32, Data: []byte{1, 0}},
		{Type: bsoncore.TypeInt64, Data: []byte{1, 0, 0, 0}},
		{Type: bsoncore.TypeDouble, Data: []byte{1}},
	} {
		if n, ok := intValue(v); ok {
			t.Errorf("intValue(%v %x) = %d, want not ok", v.Type, v.Data, n)
		}
	}
	if _, ok := docValue(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: []byte{4, 0, 0, 0}}); ok {
		t.Errorf("docValue accepted a 4-byte document")
	}
	e := newElems(bsoncore.Document{1, 0, 0})
	if _, _, ok := e.next(); ok || !e.bad {
		t.Errorf("a 3-byte document iterates: ok %v, bad %v", ok, e.bad)
	}
	e = newElems(bsoncore.Document{7, 0, 0, 0, 0x10, 'a', 0})
	if _, _, ok := e.next(); ok || !e.bad {
		t.Errorf("a key without its value iterates: ok %v, bad %v", ok, e.bad)
	}
}
