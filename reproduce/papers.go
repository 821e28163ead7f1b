package reproduce

// Paper is one of the papers the project implements, named for users by
// its short title; File is its plain-text copy in the seeds directory
// (used by the tests that check every transcribed number against its
// source line; never shown to users).
type Paper struct {
	ID    string // the CLI's name: decongestant, rpm, tpcc, consistency, read-hints
	Short string // "the Decongestant paper"
	Title string
	Venue string
	File  string
}

// Papers in the order the project builds on them.
var Papers = []*Paper{
	{ID: "decongestant", Short: "the Decongestant paper",
		Title: "Decongestant: A Breath of Fresh Air for MongoDB Through Freshness-aware Reads",
		Venue: "EDBT 2021", File: "000_18b62d2548982b26.txt"},
	{ID: "rpm", Short: "the Read Preference Manager poster",
		Title: "Deciding When to Trade Data Freshness for Performance in MongoDB-as-a-Service",
		Venue: "ICDE 2020 poster", File: "001_158200deb49e0614.txt"},
	{ID: "tpcc", Short: "the TPC-C-on-MongoDB paper",
		Title: "Adapting TPC-C Benchmark to Measure Performance of Multi-Document Transactions in MongoDB",
		Venue: "PVLDB 12(12), 2019", File: "002_7b026abb22c51ebc.txt"},
	{ID: "consistency", Short: "the consistency thesis",
		Title: "Evaluation of Eventual Consistency and Linearizability in MongoDB",
		Venue: "thesis, 2023", File: "003_57f208b49b802468.txt"},
	{ID: "read-hints", Short: "the read-hints paper",
		Title: "Addressing the Read-Performance Impact of Reconfigurations in Replicated Key-Value Stores",
		Venue: "IEEE TPDS 2022", File: "004_592be75beb6abc3d.txt"},
}

// PaperByID returns the paper with that CLI name, or nil.
func PaperByID(id string) *Paper {
	for _, p := range Papers {
		if p.ID == id {
			return p
		}
	}
	return nil
}
