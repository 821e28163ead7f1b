package tpcc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrConfig wraps every configuration error.
var ErrConfig = errors.New("tpcc")

// txnType is one of the five TPC-C transactions. The zero value is invalid.
type txnType uint8

const (
	txnNewOrder txnType = iota + 1
	txnPayment
	txnOrderStatus
	txnDelivery
	txnStockLevel
)

// txnTypes lists the transactions in the order of the mix weights.
var txnTypes = [...]txnType{txnNewOrder, txnPayment, txnOrderStatus, txnDelivery, txnStockLevel}

// String returns the name used in results, as in the TPC-C-on-MongoDB paper,
// appendix D: NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL.
func (t txnType) String() string {
	switch t {
	case txnNewOrder:
		return "NEW_ORDER"
	case txnPayment:
		return "PAYMENT"
	case txnOrderStatus:
		return "ORDER_STATUS"
	case txnDelivery:
		return "DELIVERY"
	case txnStockLevel:
		return "STOCK_LEVEL"
	}
	return fmt.Sprintf("txn(%d)", uint8(t))
}

// Weights is a transaction mix in percent, indexed by transaction in this
// order: New-Order, Payment, Order-Status, Delivery, Stock-Level; they sum
// to 100.
type Weights [5]int

// The named mixes.
var (
	// StandardMix is TPC-C clause 5.2.3's minimum mix as the TPC-C-on-MongoDB
	// paper ran it.
	StandardMix = Weights{45, 43, 4, 4, 4}
	// ReadWriteMix is the mix of the Decongestant paper, Table 1: Stock-Level
	// 50%.
	ReadWriteMix = Weights{22, 20, 4, 4, 50}
)

// String returns the mix's name when it is a named mix, else its weights
// as "no=45,pay=43,os=4,del=4,sl=4".
func (w Weights) String() string {
	switch w {
	case StandardMix:
		return "standard"
	case ReadWriteMix:
		return "readwrite"
	}
	var parts []string
	for i, k := range weightKeys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, w[i]))
	}
	return strings.Join(parts, ",")
}

var weightKeys = [5]string{"no", "pay", "os", "del", "sl"}

// ParseMix accepts "standard", "readwrite" or custom weights such as
// "no=40,pay=40,os=5,del=5,sl=10" (keys no, pay, os, del, sl; a missing key
// weighs 0) that must sum to 100.
func ParseMix(s string) (Weights, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "standard":
		return StandardMix, nil
	case "readwrite", "read-write", "rw":
		return ReadWriteMix, nil
	case "":
		return Weights{}, fmt.Errorf("%w: empty mix (want standard, readwrite or weights like no=45,pay=43,os=4,del=4,sl=4)", ErrConfig)
	}
	if !strings.Contains(s, "=") {
		return Weights{}, fmt.Errorf("%w: unknown mix %q (want standard, readwrite or weights like no=45,pay=43,os=4,del=4,sl=4)", ErrConfig, s)
	}
	var w Weights
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		i := indexOf(weightKeys[:], k)
		if !ok || i < 0 {
			return Weights{}, fmt.Errorf("%w: mix weight %q: want key=percent with key one of %s", ErrConfig, part, strings.Join(weightKeys[:], ", "))
		}
		if seen[k] {
			return Weights{}, fmt.Errorf("%w: mix weight %q given twice", ErrConfig, k)
		}
		seen[k] = true
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > 100 {
			return Weights{}, fmt.Errorf("%w: mix weight %s=%q: want a whole percent in 0..100", ErrConfig, k, v)
		}
		w[i] = n
	}
	if sum := w.sum(); sum != 100 {
		return Weights{}, fmt.Errorf("%w: mix weights %q sum to %d, not 100", ErrConfig, s, sum)
	}
	return w, nil
}

func (w Weights) sum() int {
	s := 0
	for _, v := range w {
		s += v
	}
	return s
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// pick maps a uniform number in [0, 100) to a transaction type.
func (w Weights) pick(n int) txnType {
	for i, v := range w {
		if n < v {
			return txnTypes[i]
		}
		n -= v
	}
	return txnTypes[len(txnTypes)-1]
}

// StockLevelReadConcern is how Stock-Level reads. The zero value means the
// mix's default (DefaultStockLevelReadConcern), which NewGenerator resolves.
type StockLevelReadConcern uint8

const (
	// StockLevelLocal reads with read concern local and no causally consistent
	// session, as the Decongestant paper (§2.2) ran all its reads: a lagging
	// secondary answers at once with what it has (staleness, not latency).
	StockLevelLocal StockLevelReadConcern = iota + 1
	// StockLevelMajority reads with read concern majority in the terminal's
	// causally consistent session, as the TPC-C-on-MongoDB paper (§5) ran
	// Stock-Level: a lagging secondary waits until its majority-committed data
	// includes the terminal's last operation (latency, not staleness).
	StockLevelMajority
)

// String returns "local" or "majority"; the zero value is "mix default".
func (r StockLevelReadConcern) String() string {
	switch r {
	case 0:
		return "mix default"
	case StockLevelLocal:
		return "local"
	case StockLevelMajority:
		return "majority"
	}
	return fmt.Sprintf("readconcern(%d)", uint8(r))
}

// ParseStockLevelReadConcern accepts "local" and "majority".
func ParseStockLevelReadConcern(s string) (StockLevelReadConcern, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "local":
		return StockLevelLocal, nil
	case "majority":
		return StockLevelMajority, nil
	}
	return 0, fmt.Errorf("%w: stock-level read concern %q: want local or majority", ErrConfig, s)
}

// DefaultStockLevelReadConcern is the read concern of Stock-Level under a mix:
// local for the readwrite mix (the Decongestant paper ran it with local),
// majority for the standard mix (the TPC-C-on-MongoDB paper) and for custom
// weights, which follow the TPC-C side.
func DefaultStockLevelReadConcern(mix Weights) StockLevelReadConcern {
	if mix == ReadWriteMix {
		return StockLevelLocal
	}
	return StockLevelMajority
}

// Config is a TPC-C workload configuration. DefaultConfig returns the
// TPC-C-on-MongoDB paper's choices; every practice of its §4.5 is a field so
// that its figures 2 and 3 can be reproduced.
type Config struct {
	Warehouses int     `json:"warehouses"`
	Scale      Scale   `json:"scale"`
	Schema     Schema  `json:"-"`
	Mix        Weights `json:"-"`
	// Seed makes the loaded data and the workers' choices deterministic.
	Seed uint64 `json:"seed"`
	// FindAndModify replaces a read followed by an update of the same document
	// with one findAndModify (the TPC-C-on-MongoDB paper, §4.5.5, figure 3).
	FindAndModify bool `json:"find_and_modify"`
	// BatchWrites sends New-Order's STOCK updates (and, normalized, its
	// ORDER_LINE inserts) as one bulk write (§4.5.6).
	BatchWrites bool `json:"batch_writes"`
	// RouteOrderStatus sends Order-Status through the router like
	// Stock-Level, outside a transaction (read concern majority, causal
	// session), instead of in a snapshot transaction on the primary.
	RouteOrderStatus bool `json:"route_order_status"`
	// StockLevelReadConcern is how Stock-Level reads; zero takes
	// DefaultStockLevelReadConcern of Mix (the mix configured, not one a
	// later SetMix switches to).
	StockLevelReadConcern StockLevelReadConcern `json:"-"`
	// Keying and ThinkTime add the keying and think times of TPC-C clause
	// 5.2.5.7 before and after each transaction; both off, as in the
	// TPC-C-on-MongoDB paper.
	Keying    bool `json:"keying"`
	ThinkTime bool `json:"think_time"`
	// WriteConcern of transaction commits: "majority" (the TPC-C-on-MongoDB
	// paper) or a member count such as "1".
	WriteConcern string `json:"write_concern"`
	// MaxRetries bounds the retries of one transaction on
	// TransientTransactionError (0 = unbounded, as the TPC-C-on-MongoDB paper).
	MaxRetries int `json:"max_retries"`
	// RetryBackoff caps the pause before retrying a transaction after a
	// TransientTransactionError: a random pause in [0, min(cap, 1ms*2^n)]
	// before the n-th retry ("full jitter"). 0 (the default) retries at once,
	// as the TPC-C-on-MongoDB paper did. Measured on 10 warehouses, backing off
	// did not help at 16 clients and starved transactions at 64 (DESIGN.md).
	RetryBackoff time.Duration `json:"retry_backoff_ns"`
}

// DefaultConfig returns one warehouse at standard scale, the denormalized
// schema, the standard mix, findAndModify and batched writes on, commits
// with write concern majority, Stock-Level's read concern the mix's
// default.
func DefaultConfig() Config {
	return Config{Warehouses: 1, Scale: StandardScale(), Schema: Denormalized, Mix: StandardMix,
		Seed: 1, FindAndModify: true, BatchWrites: true, WriteConcern: "majority"}
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	if err := c.validateLoad(); err != nil {
		return err
	}
	if c.Mix.sum() != 100 {
		return fmt.Errorf("%w: mix %v sums to %d, not 100", ErrConfig, c.Mix, c.Mix.sum())
	}
	if c.WriteConcern != "majority" {
		if n, err := strconv.Atoi(c.WriteConcern); err != nil || n < 0 {
			return fmt.Errorf("%w: write concern %q: want majority or a member count", ErrConfig, c.WriteConcern)
		}
	}
	if c.StockLevelReadConcern > StockLevelMajority {
		return fmt.Errorf("%w: invalid stock-level read concern %v", ErrConfig, c.StockLevelReadConcern)
	}
	if c.RetryBackoff < 0 {
		return fmt.Errorf("%w: retry backoff %v must not be negative", ErrConfig, c.RetryBackoff)
	}
	if c.MaxRetries < 0 {
		return fmt.Errorf("%w: max retries %d must not be negative", ErrConfig, c.MaxRetries)
	}
	return nil
}

// constants returns the NURand constants of the configuration's seed.
func (c Config) constants() nurandConstants { return newNURandConstants(c.Seed) }

// firstNewOrder is the O_ID of the first undelivered order loaded in each
// district (2101 at standard scale).
func (s Scale) firstNewOrder() int { return s.Customers - s.NewOrders + 1 }

// SmallScale is a reduced database for tests and quick experiments: 1000
// items, 10 districts of 30 customers with 9 new orders each. Every
// consistency condition holds on it as on the standard scale.
func SmallScale() Scale { return Scale{Items: 1000, Districts: 10, Customers: 30, NewOrders: 9} }
