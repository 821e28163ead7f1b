package proxy

import (
	"cmp"
	"crypto/hkdf"
	"crypto/sha256"
	"maps"
	"slices"

	"github.com/xdg-go/scram"
)

// decoy makes up the SCRAM-SHA-256 credentials of users that do not exist,
// so that what the server-first message shows of a user (salt, iteration
// count) never tells an unknown user from a real one:
//
//   - the iteration count is the real users' (the most common one when
//     they differ, the highest of those on a tie), not a constant;
//   - the salt is as long as the real users' (same rule) and derived from
//     the user's name with a key derived from the users file's stored keys:
//     the same at every attempt, as a real user's, and across restarts and
//     proxy instances sharing the file, yet unpredictable to whoever does
//     not hold the file (a salt drawn at random at each start tells a
//     decoy apart to whoever asks before and after a restart).
//
// Its stored and server keys are derived the same way; no password
// matches them but by breaking SHA-256.
type decoy struct {
	key               []byte // HKDF pseudo-random key, from the stored keys
	iters, saltLen    int
	storedKey, srvKey []byte
}

// maxSalt is the longest salt HKDF-SHA-256 derives (255 hashes): a users
// file whose salts are longer (none real is) gets decoys with shorter ones.
const maxSalt = 255 * sha256.Size

// newDecoy derives the decoy of users (at least one).
func newDecoy(users map[userKey]scram.StoredCredentials) decoy {
	keys := slices.SortedFunc(maps.Keys(users), func(a, b userKey) int {
		return cmp.Or(cmp.Compare(a.db, b.db), cmp.Compare(a.user, b.user))
	})
	var secret []byte
	iters, salts := map[int]int{}, map[int]int{}
	for _, k := range keys {
		sc := users[k]
		secret = append(secret, sc.StoredKey...)
		secret = append(secret, sc.ServerKey...)
		iters[sc.Iters]++
		salts[len(sc.Salt)]++
	}
	prk, err := hkdf.Extract(sha256.New, secret, []byte("decongestant proxy decoy users"))
	if err != nil {
		panic(err) // never: Extract fails only in FIPS 140-only mode
	}
	d := decoy{key: prk, iters: mostCommon(iters), saltLen: min(mostCommon(salts), maxSalt)}
	d.storedKey = d.derive("stored key", sha256Len)
	d.srvKey = d.derive("server key", sha256Len)
	return d
}

// credentials are the decoy credentials of user in db.
func (d decoy) credentials(db, user string) scram.StoredCredentials {
	return scram.StoredCredentials{
		KeyFactors: scram.KeyFactors{Salt: string(d.derive("salt\x00"+db+"\x00"+user, d.saltLen)), Iters: d.iters},
		StoredKey:  d.storedKey,
		ServerKey:  d.srvKey,
	}
}

// derive expands the decoy's key into n bytes for info.
func (d decoy) derive(info string, n int) []byte {
	b, err := hkdf.Expand(sha256.New, d.key, info, n)
	if err != nil {
		panic(err) // never: n is at most a salt's length, far below 255 hashes
	}
	return b
}

// mostCommon returns the key counted most often, the highest on a tie.
func mostCommon(counts map[int]int) int {
	best, n := 0, 0
	for k, c := range counts {
		if c > n || c == n && k > best {
			best, n = k, c
		}
	}
	return best
}
