package history

import "slices"

// LostKey is the lost-write count of one key that has a final state.
type LostKey struct {
	Key          string `json:"key"`
	Acknowledged int    `json:"acknowledged"` // ok writes and cas
	Lost         int    `json:"lost"`
}

// LostReport is the result of LostWrites.
type LostReport struct {
	// Acknowledged counts the ok writes and cas of the checked keys (those
	// with a final state).
	Acknowledged int       `json:"acknowledged"`
	Lost         int       `json:"lost"`
	Keys         []LostKey `json:"keys"`               // the checked keys, sorted
	Examples     []Op      `json:"examples,omitempty"` // the first lost writes, by key then invocation
	// Unchecked lists the keys (of the header or of an op) without a final
	// state: their writes could not be checked, which is not "none lost".
	Unchecked       []string `json:"unchecked_keys,omitempty"`
	UncheckedWrites int      `json:"unchecked_writes"` // their ok writes and cas
	// UnknownApplied counts writes and cas with an unknown outcome whose
	// value is in the final log: they took effect.
	UnknownApplied int `json:"unknown_applied"`
}

// LostWrites reports the acknowledged writes that did not survive: an ok
// write or cas whose value is not in its key's Final.Log was acknowledged
// and then rolled back (or never applied). A key without a Final entry is
// reported as unchecked.
func LostWrites(h History) LostReport {
	var rep LostReport
	logs := make(map[string]map[int64]bool, len(h.Final))
	for _, f := range h.Final {
		in := make(map[int64]bool, len(f.Log))
		for _, v := range f.Log {
			in[v] = true
		}
		logs[f.Key] = in
	}
	keys, groups := byKey(h.Ops)
	for _, k := range h.Header.Keys {
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, f := range h.Final {
		if _, ok := groups[f.Key]; !ok && !slices.Contains(keys, f.Key) {
			keys = append(keys, f.Key)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	for _, k := range keys {
		log, checked := logs[k]
		lk := LostKey{Key: k}
		for _, op := range groups[k] {
			if !op.Kind.writes() {
				continue
			}
			switch {
			case op.Outcome == OutcomeUnknown && checked && log[op.Value]:
				rep.UnknownApplied++
			case op.Outcome != OutcomeOK:
			case !checked:
				rep.UncheckedWrites++
			default:
				lk.Acknowledged++
				if !log[op.Value] {
					lk.Lost++
					rep.Examples = appendExample(rep.Examples, op)
				}
			}
		}
		if !checked {
			rep.Unchecked = append(rep.Unchecked, k)
			continue
		}
		rep.Keys = append(rep.Keys, lk)
		rep.Acknowledged += lk.Acknowledged
		rep.Lost += lk.Lost
	}
	return rep
}
