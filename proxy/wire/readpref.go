package wire

import (
	"errors"
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Mode is a read preference mode as a command's $readPreference carries it.
// The zero Mode is invalid: a ReadPref with it means the command sent none.
type Mode uint8

// The modes, numbered as mongo-go-driver's readpref.Mode.
const (
	_ Mode = iota
	PrimaryMode
	PrimaryPreferredMode
	SecondaryMode
	SecondaryPreferredMode
	NearestMode
)

// ParseMode parses a mode spelled as on the wire ("secondaryPreferred").
// Unlike readpref.ModeFromString, which reads connection strings, it is
// case-sensitive, as a server parsing $readPreference is.
func ParseMode(s string) (Mode, error) {
	if m := modeOf([]byte(s)); m != 0 {
		return m, nil
	}
	return 0, fmt.Errorf("%w: unknown read preference mode %s", ErrBadCommand, quote(s))
}

// modeOf is ParseMode without the error (0 when unknown); it does not
// allocate.
func modeOf(b []byte) Mode {
	switch string(b) {
	case "primary":
		return PrimaryMode
	case "primaryPreferred":
		return PrimaryPreferredMode
	case "secondary":
		return SecondaryMode
	case "secondaryPreferred":
		return SecondaryPreferredMode
	case "nearest":
		return NearestMode
	}
	return 0
}

// String returns the mode as spelled on the wire, "invalid" for the zero
// Mode and unknown values.
func (m Mode) String() string {
	switch m {
	case PrimaryMode:
		return "primary"
	case PrimaryPreferredMode:
		return "primaryPreferred"
	case SecondaryMode:
		return "secondary"
	case SecondaryPreferredMode:
		return "secondaryPreferred"
	case NearestMode:
		return "nearest"
	}
	return "invalid"
}

// IsValid reports whether m is one of the five modes.
func (m Mode) IsValid() bool { return m >= PrimaryMode && m <= NearestMode }

// ReadPref is a command's $readPreference (or, in an OP_QUERY, the wrapper's).
// hedge is ignored: the proxy never hedges.
type ReadPref struct {
	// Mode is zero when the command carries no $readPreference; a driver
	// then means primary.
	Mode Mode
	// MaxStaleness is maxStalenessSeconds; zero when absent (or sent as 0).
	// Drivers refuse values below 90 s; this parser does not, the proxy's
	// own bound is the tighter one.
	MaxStaleness time.Duration
	// TagSets are the tag sets in order of preference, nil when absent. An
	// empty TagSet matches every member.
	TagSets []TagSet
}

// TagSet is one document of a read preference's tags: a member matches it
// when it carries every tag.
type TagSet []Tag

// Tag is one name: value pair of a TagSet.
type Tag struct{ Name, Value string }

// parseReadPref parses the value of a $readPreference field as a server
// does: a document with a mode; maxStalenessSeconds a non-negative number;
// tags an array of documents of strings; neither of those with primary
// other than the empty tag set.
func parseReadPref(v bsoncore.Value) (ReadPref, error) {
	var rp ReadPref
	doc, ok := docValue(v)
	if !ok {
		return rp, fmt.Errorf("%w: $readPreference is a %s, not a document", ErrBadCommand, v.Type)
	}
	e := newElems(doc)
	for {
		key, val, ok := e.next()
		if !ok {
			break
		}
		switch string(key) {
		case "mode":
			s, ok := strBytes(val)
			if !ok {
				return rp, fmt.Errorf("%w: $readPreference.mode is a %s, not a string", ErrBadCommand, val.Type)
			}
			if rp.Mode = modeOf(s); rp.Mode == 0 {
				return rp, fmt.Errorf("%w: $readPreference.mode %s is not a read preference mode", ErrBadCommand, quote(s))
			}
		case "maxStalenessSeconds":
			secs, ok := val.AsFloat64OK()
			if !ok {
				return rp, fmt.Errorf("%w: $readPreference.maxStalenessSeconds is a %s, not a number", ErrBadCommand, val.Type)
			}
			if secs != secs || secs < 0 {
				return rp, fmt.Errorf("%w: $readPreference.maxStalenessSeconds is %v, not a non-negative number", ErrBadCommand, secs)
			}
			if secs >= math.MaxInt64/float64(time.Second) {
				rp.MaxStaleness = math.MaxInt64
			} else {
				rp.MaxStaleness = time.Duration(secs * float64(time.Second))
			}
		case "tags":
			sets, err := parseTagSets(val)
			if err != nil {
				return rp, err
			}
			rp.TagSets = sets
		}
	}
	if e.bad {
		return rp, fmt.Errorf("%w: $readPreference is not a whole document", ErrBadCommand)
	}
	if rp.Mode == 0 {
		return rp, fmt.Errorf("%w: $readPreference has no mode", ErrBadCommand)
	}
	if rp.Mode == PrimaryMode {
		if rp.MaxStaleness != 0 {
			return rp, fmt.Errorf("%w: $readPreference mode primary cannot have maxStalenessSeconds", ErrBadCommand)
		}
		if len(rp.TagSets) > 1 || len(rp.TagSets) == 1 && len(rp.TagSets[0]) > 0 {
			return rp, fmt.Errorf("%w: $readPreference mode primary cannot have tags other than [{}]", ErrBadCommand)
		}
	}
	return rp, nil
}

// The caps on a $readPreference's tags, far above what a deployment uses
// (a tag set names a member's data centre, rack or use; drivers send a few)
// and low enough that parsing one costs a few KiB whatever the message
// carries: a hostile find with millions of empty tag sets is refused, not
// copied.
const (
	// MaxTagSets caps the tag sets of a read preference.
	MaxTagSets = 64
	// MaxTags caps the tags of one tag set.
	MaxTags = 64
)

// parseTagSets parses a tags value: an array of at most MaxTagSets
// documents of at most MaxTags strings. It counts before it copies, so a
// value over the caps costs no allocation.
func parseTagSets(v bsoncore.Value) ([]TagSet, error) {
	arr, ok := arrayValue(v)
	if !ok {
		return nil, fmt.Errorf("%w: $readPreference.tags is a %s, not an array", ErrBadCommand, v.Type)
	}
	n, err := countElems(arr, MaxTagSets)
	if err != nil {
		return nil, fmt.Errorf("%w: $readPreference.tags: %w", ErrBadCommand, err)
	}
	sets := make([]TagSet, 0, n)
	e := newElems(arr)
	for {
		_, sv, ok := e.next()
		if !ok {
			break
		}
		doc, ok := docValue(sv)
		if !ok {
			return nil, fmt.Errorf("%w: $readPreference.tags[%d] is a %s, not a document", ErrBadCommand, len(sets), sv.Type)
		}
		n, err := countElems(doc, MaxTags)
		if err != nil {
			return nil, fmt.Errorf("%w: $readPreference.tags[%d]: %w", ErrBadCommand, len(sets), err)
		}
		set := make(TagSet, 0, n)
		te := newElems(doc)
		for {
			name, tv, ok := te.next()
			if !ok {
				break
			}
			s, ok := strBytes(tv)
			if !ok {
				return nil, fmt.Errorf("%w: $readPreference.tags[%d].%s is a %s, not a string", ErrBadCommand, len(sets), name, tv.Type)
			}
			set = append(set, Tag{Name: string(name), Value: string(s)})
		}
		sets = append(sets, set)
	}
	return sets, nil
}

// countElems counts the elements of a document or array, refusing one with
// more than limit or that is not whole. It does not allocate.
func countElems(doc []byte, limit int) (int, error) {
	n := 0
	e := newElems(doc)
	for {
		if _, _, ok := e.next(); !ok {
			break
		}
		if n++; n > limit {
			return n, fmt.Errorf("more than %d elements", limit)
		}
	}
	if e.bad {
		return n, errors.New("not a whole document")
	}
	return n, nil
}
