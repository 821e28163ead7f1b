// Package ycsb runs YCSB's core workloads A to F against MongoDB, following
// YCSB's CoreWorkload and its MongoDB binding, and registers itself as the
// workload "ycsb".
//
// # Workloads
//
// The mixes are those of YCSB's workloads/workloada..workloadf:
//
//	A  50% READ, 50% UPDATE                 zipfian
//	B  95% READ,  5% UPDATE                 zipfian
//	C 100% READ                             zipfian
//	D  95% READ,  5% INSERT                 latest
//	E  95% SCAN,  5% INSERT                 zipfian, scan length uniform in [1, maxscanlength]
//	F  50% READ, 50% READ-MODIFY-WRITE      zipfian
//
// Reads read whole records (readallfields=true); updates and
// read-modify-writes set one random field (writeallfields=false); inserts
// write every field. READ and SCAN are reads and go through env.Reads, so
// the router can place them; UPDATE, INSERT and READ-MODIFY-WRITE are
// writes on env.DB (the read half of a read-modify-write still goes through
// env.Reads).
//
// # Data
//
// Record keynum has _id "user" + FNVHash64(keynum) in decimal (YCSB's
// hashed insert order, so key 0 is "user6284781860667377211") and string
// fields field0..field{fields-1} of fieldlength printable bytes that depend
// only on (seed, keynum): Generator.Document regenerates any record. Load
// drops and recreates the collection, then inserts records [insertstart,
// insertstart+records) in unordered batches.
//
// # Key choice
//
// zipfian is YCSB's ScrambledZipfianGenerator: a zipfian with constant 0.99
// over 10^10 items (with YCSB's precomputed zeta), hashed with FNVHash64
// and taken modulo the record count, so hot records are scattered. uniform
// picks any loaded record. latest is YCSB's SkewedLatestGenerator over the
// generator's acknowledged insert counter, so workload D favours the newest
// inserts that completed. Inserts take key numbers from that counter, shared
// by all workers of a generator and starting at insertstart+records, so
// concurrent inserts never collide.
//
// A READ, UPDATE, SCAN or READ-MODIFY-WRITE that misses a loaded record
// fails with ErrNotFound; a miss on a record inserted during the run (which
// a secondary may not have yet) is not an error.
//
// # Options
//
// The registered workload declares its settings as flags (Flags; the CLI's
// `bench ycsb` flags), and ParseOptions takes the same settings as string
// options (YCSB's property names in parentheses are accepted too): workload (a..f or workloada..f, default b), records
// (recordcount, 100000), fields (fieldcount, 10), fieldlength (100),
// distribution (requestdistribution: zipfian, uniform or latest; default
// the mix's own), maxscanlength (100), seed (1), collection (table,
// usertable) and insertstart (0). The seed is the runner's (--seed).
//
// # Example
//
//	g, err := workload.Configure("ycsb", workload.Shared{Seed: 1}, "--workload", "a", "--records", "10000")
//	if err != nil {
//		return err
//	}
//	env := workload.Env{DB: db, Reads: workload.PlainReads{DB: db}}
//	if err := g.Load(ctx, env, 8, nil); err != nil {
//		return err
//	}
//	w, err := g.NewWorker(env, 0)
//	if err != nil {
//		return err
//	}
//	op, err := w.Do(ctx) // op.Name is "READ" or "UPDATE"
//
// The runner times each Do; workers never time themselves. SetMix("b")
// switches later workers to workload B over the same data.
package ycsb
