package wire

import (
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// typicalFind is a find as the Go driver sends a YCSB read through a proxy:
// point filter, limit 1, implicit session, gossiped cluster time, a
// secondaryPreferred read preference.
func typicalFind(tb testing.TB) []byte {
	return opMsg(0, doc(tb, d("find", "usertable", "filter", d("_id", "user6284781860667377211"), "limit", int64(1), "singleBatch", true, "lsid", d("id", bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}), "$clusterTime", d("clusterTime", bson.Timestamp{T: 1700000000, I: 3}, "signature", d("hash", bson.Binary{Data: make([]byte, 20)}, "keyId", int64(0))), "$readPreference", d("mode", "secondaryPreferred"), "$db", "ycsb")))
}

func BenchmarkClassifyFind(b *testing.B) {
	m, err := Parse(typicalFind(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if c, err := Classify(&m); err != nil || c.Kind != KindRead {
			b.Fatal(c, err)
		}
	}
}

// reportCPU reports the process's CPU time per iteration (cpu-ns/op) next
// to ns/op, which is wall time and grows with whatever else the machine
// runs; call the returned function after the loop.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkParseClassifyFind(b *testing.B) {
	msg := typicalFind(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	defer reportCPU(b)()
	for b.Loop() {
		m, err := Parse(msg)
		if err != nil {
			b.Fatal(err)
		}
		if c, err := Classify(&m); err != nil || c.Kind != KindRead {
			b.Fatal(c, err)
		}
	}
}
