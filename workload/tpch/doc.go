// Package tpch runs TPC-H's Q1, the Pricing Summary Report Query, on a
// LINEITEM table it generates by dbgen's rules, and registers itself as
// the workload "tpch". It is the analytics workload of the read-hints paper
// (§4.11.2): Q1 on LINEITEM of scale factor 10, with indexes on the fields the query uses and random
// shipdate parameters, moved from the primary to a secondary mid-run; on
// the secondary's cold cache the query ran 5.25 times slower (1.2 s to
// 6.3 s) with 40-60% cache misses. With bench's machinery the move is one
// command: phases move the reads (60s:reads=n2), --cold-start empties the
// secondaries' caches, and the member statistics record each member's cache
// misses. Read hints (--hints on) replay each distinct Q1 on the members
// that did not serve it, as the paper's module replays the reads.
//
// # Data
//
// Data generates LINEITEM following TPC-H clause 4.2.3: SF x 1,500,000
// orders with sparse keys (8 of every 32, as dbgen), 1 to 7 lines each,
// L_QUANTITY in [1, 50], L_EXTENDEDPRICE = quantity x P_RETAILPRICE of a
// part uniform in [1, SF x 200,000], L_DISCOUNT in [0.00, 0.10], L_TAX in
// [0.00, 0.08], O_ORDERDATE in [1992-01-01, 1998-08-02], L_SHIPDATE =
// orderdate + [1, 121] days, L_COMMITDATE = orderdate + [30, 90],
// L_RECEIPTDATE = shipdate + [1, 30], L_RETURNFLAG R or A when received by
// CURRENTDATE (1995-06-17) and N after it, L_LINESTATUS O when shipped
// after CURRENTDATE and F before, and the text columns (L_SHIPINSTRUCT,
// L_SHIPMODE, L_COMMENT of 10 to 43 characters of dbgen-like text). The
// distributions are dbgen's, the values are not: every order draws from its
// own stream seeded from (seed, order number), so any load batch can be
// regenerated alone. Documents carry the columns in lower case (l_shipdate,
// ...), _id = L_ORDERKEY x 8 + L_LINENUMBER, prices and rates as doubles
// and dates as BSON dates.
//
// About 6,000,000 x SF documents of about 370 bytes of BSON: SF 0.05 is
// some 300,000 documents and 110 MB, SF 1 some 2.2 GB (Estimate). Load
// drops and recreates the collection, inserts in parallel batches and then
// indexes l_shipdate.
//
// # Query
//
// Every Do runs Q1 once as an aggregation ($match on l_shipdate, $group by
// l_returnflag and l_linestatus, $project, $sort) through env.Reads, so the
// router's policy picks the member, and reports it as the read "Q1". DELTA
// is uniform in [60, 120] days (clause 2.4.1.3), so Q1 selects 95-98% of
// the line items. With the l_shipdate index, MongoDB's planner has a single
// candidate plan, the index scan, and fetches the documents in shipdate
// order rather than scanning the collection; --q1-plan collscan hints the
// collection scan instead, --q1-plan index fixes the index.
//
// # Example
//
//	g, err := workload.Configure("tpch", workload.Shared{Seed: 1}, "--sf", "0.01")
//	if err != nil {
//		return err
//	}
//	env := workload.Env{DB: db, Reads: workload.PlainReads{DB: db}}
//	if err := g.Load(ctx, env, 4, nil); err != nil {
//		return err
//	}
//	w, err := g.NewWorker(env, 0)
//	if err != nil {
//		return err
//	}
//	op, err := w.Do(ctx) // op.Name is "Q1"
//
// From the command line:
//
//	decongestant bench tpch --uri URI --sf 0.1 --clients 2 --policies primary --phases "60s:reads=n2"
package tpch
