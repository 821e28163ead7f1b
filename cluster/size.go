package cluster

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Binary size units, as ParseSize reads them.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
)

// sizeUnits maps ParseSize's units, lower-cased, to their size in bytes.
var sizeUnits = map[string]int64{"": 1, "k": KiB, "kib": KiB, "m": MiB, "mib": MiB, "g": GiB, "gib": GiB}

// ParseSize reads a size in bytes: a whole number of bytes ("629145600") or a number with a binary
// unit, K, M or G (or KiB, MiB, GiB; any case): "600M" = 600 MiB, "1.5G" = 1536 MiB. "0" is 0 (no
// cap, where a cap is meant). Negative sizes, other units (MB is refused rather than guessed) and
// sizes beyond int64 are errors.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, unicode.IsLetter)
	if i < 0 {
		i = len(t)
	}
	num, unit := strings.TrimSpace(t[:i]), t[i:]
	mult, ok := sizeUnits[strings.ToLower(unit)]
	v, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil || !ok || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("size %q is not bytes or a number with K, M or G (binary: 1M = 1048576 bytes), such as 600M", s)
	case v < 0:
		return 0, fmt.Errorf("size %q must not be negative (0 = no cap)", s)
	case mult == 1 && v != math.Trunc(v):
		return 0, fmt.Errorf("size %q: a number of bytes must be whole", s)
	case v*float64(mult) >= math.MaxInt64:
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(math.Round(v * float64(mult))), nil
}

// FormatSize writes n bytes the way ParseSize reads them: "1G", "600M" or "512K" when n is a whole
// number of that unit, else "572.2M" (rounded to a tenth of a MiB) from 1 MiB up, else in bytes (as
// are 0 and negative sizes).
func FormatSize(n int64) string {
	switch {
	case n <= 0:
		return strconv.FormatInt(n, 10)
	case n%GiB == 0:
		return strconv.FormatInt(n/GiB, 10) + "G"
	case n%MiB == 0:
		return strconv.FormatInt(n/MiB, 10) + "M"
	case n >= MiB:
		return strconv.FormatFloat(float64(n)/float64(MiB), 'f', 1, 64) + "M"
	case n%KiB == 0:
		return strconv.FormatInt(n/KiB, 10) + "K"
	}
	return strconv.FormatInt(n, 10)
}
