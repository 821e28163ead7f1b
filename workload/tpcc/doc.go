// Package tpcc runs TPC-C on MongoDB as the TPC-C-on-MongoDB paper ran it
// (py-tpcc's MongoDB driver: the TPC-C tables as upper-case collections, the
// five transactions in multi-document transactions, findAndModify and batched
// writes as options), with the Decongestant paper's read-write mix (Stock-Level
// 50%) beside the standard one. It registers itself as the workload "tpcc".
//
// Stock-Level, the read the balancer routes, runs outside a transaction as
// one routed unit; Order-Status can be routed the same way. The other
// transactions run in snapshot transactions on the primary and are retried
// whole on TransientTransactionError. The consistency conditions of clause
// 3.3.2 can be checked on a live database, each warehouse in its own
// snapshot. The repository's DESIGN.md (section TPC-C) gives the choices
// and where py-tpcc departs from the specification.
//
// # Layout
//
// One file per job, one per transaction; comments cite the TPC-C clause
// they implement, and each consistency check is named by its clause
// (check3321 is 3.3.2.1).
//
//	flags.go         Flags: the settings as flags, declared once (the registered workload)
//	tpcc.go          the Generator and its terminals (worker): mix, keying and think times
//	config.go        Config, the mixes (Weights), Stock-Level's read concern
//	schema.go        collections, document types, indexes (the TPC-C-on-MongoDB paper, appendix B), Scale
//	random.go        the random source of clauses 2.1.6 and 4.3.2 (NURand, last names)
//	txn.go           the transaction runner: retries, commit, abort
//	new_order.go     New-Order (clause 2.4)
//	payment.go       Payment (2.5)
//	order_status.go  Order-Status (2.6)
//	delivery.go      Delivery (2.7)
//	stock_level.go   Stock-Level (2.8)
//	load.go          Load: resume, metadata, the count check of clause 4.3.3.1
//	load_units.go    the load units and their parallel, batched inserts
//	load_gen.go      the deterministic documents of each unit (clause 4.3.3.1)
//	check.go         Check: the conditions of clause 3.3.2 and how they are run
//	check_read.go    the reads of one warehouse's snapshot
//	check_data.go    the rows read and their per-district and per-customer sums
//	check_orders.go  the conditions on orders, order lines and new orders (3.3.2.2–7, 11)
//	check_money.go   the conditions on money (3.3.2.1, 8, 9, 10, 12)
//	report.go        the run's report: tpmC, latencies, server counters
//	acid.go          ACID: the ACID tests of clause 3 (atomicity, isolation, durability), options, results
//	acid_steps.go    transactions driven step by step, and concurrent ones, for the ACID tests
//	acid_atomicity.go  the atomicity tests (3.2.2.1, 3.2.2.2)
//	acid_isolation.go  the nine isolation tests (3.4.2.1–9)
//	acid_durability.go the durability test (3.5.4): New-Orders while the primary is killed
//
// # Exported API
//
// What stays exported is what a caller configures, runs and reads: Name and
// Flags (the registry), Config with its field types and their parsers
// (Scale, Schema, Weights, StockLevelReadConcern), NewGenerator and
// Generator, Load with LoadOptions and Loaded with LoadInfo, Check with
// CheckOptions, CheckResult, CheckStatus and CheckClauses, ACID with
// ACIDOptions, ACIDResult, ACIDTests, Failover and DurabilityOptions, the
// report types
// (RunReport and its parts, the "tpcc" object of the results JSON) and the
// sentinel errors ErrConfig, ErrEmpty, ErrMismatch and ErrNotFound. The
// documents, the random source and the transactions are the package's own.
//
// # Example
//
// Load four warehouses, run terminals with the Decongestant paper's mix, then
// check the database:
//
//	cfg := tpcc.DefaultConfig()
//	cfg.Warehouses = 4
//	cfg.Mix = tpcc.ReadWriteMix
//	g, err := tpcc.NewGenerator(cfg)
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
//	op, err := w.Do(ctx) // op.Name is NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY or STOCK_LEVEL
//	...
//	results, err := tpcc.Check(ctx, db, tpcc.CheckOptions{})
//
// The runner (package bench) times each Do (workers never time themselves)
// and calls BeginRun, StartMeasure and EndRun around a run; EndRun's
// RunReport is the run's "tpcc" results.
package tpcc
