package wire

import (
	"bytes"
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The helpers below read BSON the way the classifier needs on its hot path:
// bounds-checked, never panicking on malformed input, and without turning
// keys or string values into Go strings (a switch on string(b) does not
// allocate).

// readDoc reads one document at the start of src: a length of at least 5
// that fits in src and a terminating 0x00. The elements are not checked.
func readDoc(src []byte) (doc bsoncore.Document, rem []byte, ok bool) {
	if len(src) < 4 {
		return nil, src, false
	}
	n := int32(binary.LittleEndian.Uint32(src))
	if n < 5 || int64(n) > int64(len(src)) || src[n-1] != 0x00 {
		return nil, src, false
	}
	return src[:n], src[n:], true
}

// elems walks the top-level elements of a document that readDoc accepted.
type elems struct {
	rem []byte // the elements not yet read, then the terminating 0x00
	bad bool   // an element did not fit: the document is malformed
}

func newElems(doc bsoncore.Document) elems {
	if len(doc) < 5 {
		return elems{bad: true}
	}
	return elems{rem: doc[4:]}
}

// next returns the next element's key and value; ok is false at the end of
// the document or at the first element that does not fit (then e.bad).
func (e *elems) next() (key []byte, v bsoncore.Value, ok bool) {
	if e.bad || len(e.rem) == 1 {
		return nil, bsoncore.Value{}, false
	}
	nul := bytes.IndexByte(e.rem[1:], 0x00)
	if nul < 0 {
		e.bad = true
		return nil, bsoncore.Value{}, false
	}
	key = e.rem[1 : 1+nul]
	v, rem, ok := bsoncore.ReadValue(e.rem[1+nul+1:], bsoncore.Type(e.rem[0]))
	// The last element must leave the document's terminating 0x00 alone.
	if !ok || len(rem) == 0 {
		e.bad = true
		return nil, bsoncore.Value{}, false
	}
	e.rem = rem
	return key, v, true
}

// strBytes is the bytes of a BSON string value, without its 0x00.
func strBytes(v bsoncore.Value) ([]byte, bool) {
	if v.Type != bsoncore.TypeString || len(v.Data) < 5 {
		return nil, false
	}
	n := int32(binary.LittleEndian.Uint32(v.Data))
	if n < 1 || int64(n) > int64(len(v.Data)-4) || v.Data[4+n-1] != 0x00 {
		return nil, false
	}
	return v.Data[4 : 4+n-1], true
}

// docValue is an embedded document value, checked by readDoc.
func docValue(v bsoncore.Value) (bsoncore.Document, bool) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, false
	}
	d, _, ok := readDoc(v.Data)
	return d, ok
}

// arrayValue is an array value as a document (keys "0", "1", ...), checked
// by readDoc.
func arrayValue(v bsoncore.Value) (bsoncore.Document, bool) {
	if v.Type != bsoncore.TypeArray {
		return nil, false
	}
	d, _, ok := readDoc(v.Data)
	return d, ok
}

// intValue is an int32, int64 or integral double value as an int64.
func intValue(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32:
		if len(v.Data) < 4 {
			return 0, false
		}
		return int64(int32(binary.LittleEndian.Uint32(v.Data))), true
	case bsoncore.TypeInt64:
		if len(v.Data) < 8 {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint64(v.Data)), true
	case bsoncore.TypeDouble:
		f, ok := v.DoubleOK()
		if !ok || f != f || f < -(1<<63) || f >= 1<<63 || f != float64(int64(f)) {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

// truthy is MongoDB's reading of a flag field: true, or a non-zero number.
func truthy(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeBoolean:
		return len(v.Data) >= 1 && v.Data[0] != 0
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		n, ok := intValue(v)
		return ok && n != 0
	case bsoncore.TypeDouble:
		f, ok := v.DoubleOK()
		return ok && f != 0
	}
	return false
}

// lookup is the value of doc's top-level key, the zero Value when absent
// (or when doc is malformed before it).
func lookup(doc bsoncore.Document, key string) bsoncore.Value {
	e := newElems(doc)
	for {
		k, v, ok := e.next()
		if !ok {
			return bsoncore.Value{}
		}
		if string(k) == key {
			return v
		}
	}
}
