// Package registers records histories for the consistency checkers: writers
// write and compare-and-set a few registers, readers read them, and every
// operation's invocation and completion time, arguments, result and the
// member that served it go into a history.History. A register is one
// document whose version counts its writes and whose log keeps every value
// written, so the checkers can order writes and find the lost ones.
//
//	h, err := registers.Run(ctx, registers.Defaults(), registers.Env{
//		Client: client, Writes: writes, Reads: reads, Final: registers.FinalCollection(client, "decongestant", "registers"),
//	}, time.Now())
package registers
