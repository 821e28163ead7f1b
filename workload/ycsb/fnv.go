package ycsb

import "strconv"

// FNV-1a 64-bit parameters (Fowler/Noll/Vo), as YCSB's Utils declares them.
const (
	fnvOffsetBasis64 = 0xCBF29CE484222325
	fnvPrime64       = 1099511628211
)

// FNVHash64 is YCSB's Utils.fnvhash64: FNV-1a over the eight bytes of val,
// least significant first, with the result reinterpreted as a signed 64-bit
// integer and made non-negative the way Java's Math.abs does it (so the one
// value math.MinInt64 stays negative, exactly as in Java).
//
// YCSB uses it to scatter key numbers over the key space (insertorder=hashed)
// and to scramble the zipfian distribution over the records.
func FNVHash64(val int64) int64 {
	h := uint64(fnvOffsetBasis64)
	v := uint64(val)
	for range 8 {
		h ^= v & 0xff
		v >>= 8
		h *= fnvPrime64
	}
	s := int64(h)
	if s < 0 {
		s = -s // wraps for math.MinInt64, as Java's Math.abs does
	}
	return s
}

// keyPrefix is YCSB's key prefix in CoreWorkload.buildKeyName.
const keyPrefix = "user"

// Key returns YCSB's record key for keynum with insertorder=hashed and
// zeropadding=1: "user" followed by the decimal of FNVHash64(keynum). Key 0
// is "user6284781860667377211", the first key of every YCSB load.
func Key(keynum int64) string {
	return string(appendKey(make([]byte, 0, 24), keynum))
}

// appendKey appends Key(keynum) to dst without allocating when dst has room.
func appendKey(dst []byte, keynum int64) []byte {
	dst = append(dst, keyPrefix...)
	return strconv.AppendInt(dst, FNVHash64(keynum), 10)
}
