package ycsb

import (
	"math/rand/v2"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// fieldNames returns YCSB's field names field0..field{n-1}
// (fieldnameprefix "field").
func fieldNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = "field" + strconv.Itoa(i)
	}
	return names
}

// printable maps a random byte onto the 95 printable ASCII characters
// ' '..'~', so values are valid UTF-8 strings of exactly one byte per
// character.
func printable(b byte) byte { return ' ' + byte(uint16(b)*95>>8) }

// splitmix64 is one step of Steele et al.'s SplitMix64: it advances *s and
// returns the next well-mixed 64 bits.
func splitmix64(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// fillLoaded fills dst with the value of field of record keynum: a function
// of (seed, keynum, field) only, so any record can be regenerated to load it
// or to check it.
func fillLoaded(dst []byte, seed, keynum int64, field int) {
	s := uint64(seed)
	s = splitmix64(&s) ^ uint64(keynum)
	s = splitmix64(&s) ^ uint64(field)
	for i := 0; i < len(dst); i += 8 {
		putPrintable(dst[i:min(i+8, len(dst))], splitmix64(&s))
	}
}

// fillRandom fills dst with printable bytes from r, for updates (YCSB writes
// fresh random bytes on every update).
func fillRandom(dst []byte, r *rand.Rand) {
	for i := 0; i < len(dst); i += 8 {
		putPrintable(dst[i:min(i+8, len(dst))], r.Uint64())
	}
}

// putPrintable spreads the bytes of x over dst, at most 8 bytes.
func putPrintable(dst []byte, x uint64) {
	for j := range dst {
		dst[j] = printable(byte(x))
		x >>= 8
	}
}

// record builds record keynum as loaded and as inserted by workloads D and
// E: _id is the key (as YCSB's MongoDB binding stores it) and each field is
// a string of fieldLength printable bytes. buf is scratch of at least
// fieldLength bytes.
func record(names []string, fieldLength int, seed, keynum int64, buf []byte) bson.D {
	doc := make(bson.D, 0, 1+len(names))
	doc = append(doc, bson.E{Key: "_id", Value: Key(keynum)})
	v := buf[:fieldLength]
	for f, name := range names {
		fillLoaded(v, seed, keynum, f)
		doc = append(doc, bson.E{Key: name, Value: string(v)})
	}
	return doc
}
