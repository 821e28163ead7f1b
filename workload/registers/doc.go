// Package registers records histories for the consistency checkers: writers
// write and compare-and-set a few registers, readers read them, and every
// operation's invocation and completion time, arguments, result and the
// member that served it go into a history.History. A register is one
// document whose version counts its writes and whose log keeps every value
// written, so the checkers can order writes and find the lost ones.
//
//	cfg := registers.Defaults()
//	h, err := registers.Run(ctx, cfg, registers.Env{Client: client, Writes: writes, Reads: reads}, time.Now())
//	// ... undo any faults, then:
//	h.Final, err = registers.ReadFinal(ctx, registers.FinalCollection(client, cfg.Database, cfg.Collection), h.Header.Keys)
package registers
