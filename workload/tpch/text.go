package tpch

import (
	"math/rand/v2"
	"strings"
	"sync"
)

// Text strings (clause 4.2.2.10): dbgen builds a pool of pseudo-text from a
// small grammar over the word lists of dists.dss, and a comment of length
// [min, max] is a substring of the pool at a random offset. The pool here
// is built the same way, smaller (1 MiB instead of 300 MB) and from a fixed
// seed, so comments depend only on the offset and length drawn for them.

// textPoolBytes is the size of the text pool.
const textPoolBytes = 1 << 20

var (
	poolOnce sync.Once
	pool     string
)

// textPool returns the pool, built on first use.
func textPool() string {
	poolOnce.Do(func() { pool = buildTextPool(textPoolBytes, 4242) })
	return pool
}

// Words of dists.dss's lists (nouns, verbs, adjectives, adverbs,
// prepositions, auxiliaries, terminators), drawn uniformly rather than with
// dbgen's weights: the comments only pad the documents to a realistic size
// and Q1 never reads them.
var (
	nouns = []string{"foxes", "ideas", "theodolites", "pinto beans", "instructions", "dependencies", "excuses",
		"platelets", "asymptotes", "courts", "dolphins", "multipliers", "sauternes", "warthogs", "frets", "dinos",
		"attainments", "somas", "Tiresias", "patterns", "forges", "braids", "hockey players", "frays", "warhorses",
		"dugouts", "notornis", "epitaphs", "pearls", "tithes", "waters", "orbits", "gifts", "sheaves", "depths",
		"sentiments", "decoys", "realms", "pains", "grouches", "escapades", "packages", "requests", "accounts",
		"deposits"}
	verbs = []string{"sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect",
		"integrate", "maintain", "nod", "was", "lose", "sublate", "solve", "thrash", "promise", "engage", "hinder",
		"print", "x-ray", "breach", "eat", "grow", "impress", "mold", "poach", "serve", "run", "dazzle", "snooze",
		"doze", "unwind", "kindle", "play", "hang", "believe", "doubt"}
	adjectives = []string{"furious", "sly", "careful", "blithe", "quick", "fluffy", "slow", "quiet", "ruthless",
		"thin", "close", "dogged", "daring", "brave", "stealthy", "permanent", "enticing", "idle", "busy",
		"regular", "final", "ironic", "even", "bold", "silent", "express", "special", "pending", "unusual"}
	adverbs = []string{"sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely", "quickly",
		"fluffily", "slowly", "quietly", "ruthlessly", "thinly", "closely", "doggedly", "daringly", "bravely",
		"stealthily", "permanently", "enticingly", "idly", "busily", "regularly", "finally", "ironically",
		"evenly", "boldly", "silently"}
	prepositions = []string{"about", "above", "according to", "across", "after", "against", "along",
		"alongside of", "among", "around", "at", "atop", "before", "behind", "beneath", "beside", "besides",
		"between", "beyond", "by", "despite", "during", "except", "for", "from", "in place of", "inside",
		"instead of", "into", "near", "of", "on", "outside", "over", "past", "since", "through", "throughout",
		"to", "toward", "under", "until", "up", "upon", "without", "with", "within"}
	auxiliaries = []string{"do", "may", "might", "shall", "will", "would", "can", "could", "should", "ought to",
		"must", "will have to", "shall have to", "could have to", "should have to", "must have to", "need to",
		"try to"}
	terminators = []string{".", ";", ":", "?", "!", "--"}
)

// buildTextPool returns n bytes of sentences of dists.dss's grammar:
// sentence = noun phrase, verb phrase and terminator, optionally with a
// prepositional phrase or an object; noun phrase = [adverb] [adjective[,
// adjective]] noun; verb phrase = [auxiliary] verb [adverb].
func buildTextPool(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed))
	pick := func(words []string) string { return words[r.IntN(len(words))] }
	var b strings.Builder
	b.Grow(n + 200)
	np := func() {
		switch x := r.IntN(90); {
		case x < 10:
		case x < 30:
			b.WriteString(pick(adjectives) + " ")
		case x < 40:
			b.WriteString(pick(adjectives) + ", " + pick(adjectives) + " ")
		default:
			b.WriteString(pick(adverbs) + " " + pick(adjectives) + " ")
		}
		b.WriteString(pick(nouns))
	}
	vp := func() {
		b.WriteByte(' ')
		if r.IntN(36) < 2 {
			b.WriteString(pick(auxiliaries) + " ")
		}
		b.WriteString(pick(verbs))
		if r.IntN(72) < 41 {
			b.WriteString(" " + pick(adverbs))
		}
	}
	for b.Len() < n {
		np()
		switch r.IntN(11) {
		case 0, 1, 2: // N V T
			vp()
		case 3, 4, 5: // N V P T
			vp()
			b.WriteString(" " + pick(prepositions) + " the ")
			np()
		case 6, 7, 8: // N V N T
			vp()
			b.WriteByte(' ')
			np()
		case 9: // N P V N T
			b.WriteString(" " + pick(prepositions) + " the ")
			np()
			vp()
			b.WriteByte(' ')
			np()
		default: // N P V P T
			b.WriteString(" " + pick(prepositions) + " the ")
			np()
			vp()
			b.WriteString(" " + pick(prepositions) + " the ")
			np()
		}
		b.WriteString(pick(terminators) + " ")
	}
	return b.String()[:n]
}
