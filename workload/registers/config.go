package registers

import (
	"errors"
	"fmt"
	"time"
)

// ErrBadConfig is wrapped by every configuration error.
var ErrBadConfig = errors.New("invalid registers config")

// MaxDocSize is MongoDB's document limit (16 MiB).
const MaxDocSize = 16 << 20

// overhead is what a register holds besides its padding and its log: _id,
// v, val, the field names and BSON framing (bytes).
const overhead = 64

// MinDocSize is the smallest DocSize but 0: the register's own fields.
const MinDocSize = overhead

// logRoom is what a register keeps free for its log of every value written
// (about 16 bytes a value in BSON: 64 Ki values).
const logRoom = 1 << 20

// Config is one recorded run: writers and readers on a few registers.
type Config struct {
	// Keys is the number of registers (4).
	Keys int
	// Writers write and compare-and-set; with ReadShare > 0 they also read
	// (so their sessions can be checked for read-your-writes) (3).
	Writers int
	// Readers only read (5).
	Readers int
	// ReadShare is the share of a writer's operations that are reads (0.3).
	ReadShare float64
	// CASShare is the share of a writer's writes that are compare-and-set
	// (findOneAndUpdate on the value it last saw) (0.3).
	CASShare float64
	// WriteInterval and ReadInterval are a writer's and a reader's pause
	// between operations (10 ms, 2 ms).
	WriteInterval, ReadInterval time.Duration
	// Writes, when positive, ends the run once every writer has made that
	// many operations (the consistency thesis: 100); otherwise Duration does.
	Writes int
	// Duration is how long clients run when Writes is 0 (30 s).
	Duration time.Duration
	// OpTimeout bounds one operation (5 s): past it a write's outcome is
	// unknown.
	OpTimeout time.Duration
	// DocSize is a register's size in bytes before its log: a write rewrites
	// that much, as the consistency thesis' writer wrote whole documents (0: no
	// padding).
	DocSize int
	// Sessions runs each client in a causally consistent session.
	Sessions bool
	// WholeReads makes a read fetch the whole register but its log (padding
	// included), so the bytes a read moves grow with DocSize; otherwise a read
	// fetches only the version and the value. The consistency thesis does not
	// say which its reader did; its read latency barely grew with the document
	// size.
	WholeReads bool
	// Database and Collection hold the registers ("decongestant",
	// "registers").
	Database, Collection string
	// Seed makes the clients' choices reproducible (1).
	Seed uint64
}

// Defaults returns the check's defaults: 3 writers and 5 readers on 4
// registers for 30 s.
func Defaults() Config {
	return Config{Keys: 4, Writers: 3, Readers: 5, ReadShare: 0.3, CASShare: 0.3,
		WriteInterval: 10 * time.Millisecond, ReadInterval: 2 * time.Millisecond, Duration: 30 * time.Second,
		OpTimeout: 5 * time.Second, Database: "decongestant", Collection: "registers", Seed: 1}
}

// Validate checks c once, naming the offending setting.
func (c Config) Validate() error {
	switch {
	case c.Keys < 1:
		return fmt.Errorf("%w: keys %d must be at least 1", ErrBadConfig, c.Keys)
	case c.Writers < 1:
		return fmt.Errorf("%w: writers %d must be at least 1 (a history without writes checks nothing)", ErrBadConfig, c.Writers)
	case c.Readers < 0:
		return fmt.Errorf("%w: readers %d must not be negative", ErrBadConfig, c.Readers)
	case !(c.ReadShare >= 0 && c.ReadShare < 1):
		return fmt.Errorf("%w: read share %v must be in [0, 1)", ErrBadConfig, c.ReadShare)
	case !(c.CASShare >= 0 && c.CASShare <= 1):
		return fmt.Errorf("%w: CAS share %v must be in [0, 1]", ErrBadConfig, c.CASShare)
	case c.WriteInterval < 0 || c.ReadInterval < 0:
		return fmt.Errorf("%w: intervals must not be negative (write %v, read %v)", ErrBadConfig, c.WriteInterval, c.ReadInterval)
	case c.Writes < 0:
		return fmt.Errorf("%w: writes %d must not be negative", ErrBadConfig, c.Writes)
	case c.Writes == 0 && c.Duration <= 0:
		return fmt.Errorf("%w: give a positive duration or a number of writes", ErrBadConfig)
	case c.OpTimeout <= 0:
		return fmt.Errorf("%w: operation timeout %v must be positive", ErrBadConfig, c.OpTimeout)
	case c.DocSize < 0 || c.DocSize > MaxDocSize-logRoom:
		return fmt.Errorf("%w: document size %d must be at most %d bytes (MongoDB's 16 MiB limit less room for the register's log)",
			ErrBadConfig, c.DocSize, MaxDocSize-logRoom)
	case c.DocSize > 0 && c.DocSize < overhead:
		return fmt.Errorf("%w: document size %d is below the register's own fields (%d bytes); give 0 for no padding",
			ErrBadConfig, c.DocSize, overhead)
	case c.Database == "" || c.Collection == "":
		return fmt.Errorf("%w: database and collection must be named", ErrBadConfig)
	}
	return nil
}
