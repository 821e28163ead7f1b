package tpch

import (
	"fmt"
	"time"
)

// Date is a calendar day, counted in days since 1970-01-01 (UTC). TPC-H's
// dates are days; the documents store them as BSON dates at midnight UTC.
type Date int32

// DateOf returns the day of t (UTC).
func DateOf(t time.Time) Date {
	return Date(t.UTC().Truncate(24*time.Hour).Unix() / 86400)
}

// ymd returns the Date of a year, month and day.
func ymd(y int, m time.Month, d int) Date {
	return DateOf(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
}

// Time returns midnight UTC of d, as the documents store it.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String returns d as YYYY-MM-DD.
func (d Date) String() string { return d.Time().Format(time.DateOnly) }

// The dates of TPC-H clause 4.2.2.12.
var (
	// StartDate is STARTDATE, 1992-01-01, the first order date.
	StartDate = ymd(1992, time.January, 1)
	// CurrentDate is CURRENTDATE, 1995-06-17: line items received by then
	// are returned or accepted (L_RETURNFLAG R or A), and those shipped
	// after it are open (L_LINESTATUS O).
	CurrentDate = ymd(1995, time.June, 17)
	// EndDate is ENDDATE, 1998-12-31.
	EndDate = ymd(1998, time.December, 31)
	// Q1Date is Q1's date '1998-12-01' from which DELTA days are
	// subtracted (clause 2.4.1.2).
	Q1Date = ymd(1998, time.December, 1)
)

// The ranges of clause 4.2.3 (ORDERS and LINEITEM), as dbgen's dss.h names
// them where it has names.
const (
	// OrdersPerSF is the ORDERS cardinality at scale factor 1
	// (clause 4.2.5.1); LINEITEM has about 4 times as many rows.
	OrdersPerSF = 1_500_000
	// PartsPerSF and SuppliersPerSF are PART's and SUPPLIER's cardinality
	// at scale factor 1: L_PARTKEY is uniform over the parts, L_SUPPKEY one
	// of the part's 4 suppliers.
	PartsPerSF     = 200_000
	SuppliersPerSF = 10_000
	// MaxLines is the most lines of one order: their count is uniform in
	// [1, 7].
	MaxLines = 7
	// MaxQuantity bounds L_QUANTITY, uniform in [1, 50].
	MaxQuantity = 50
	// MaxDiscountPct and MaxTaxPct bound L_DISCOUNT, uniform in
	// [0.00, 0.10], and L_TAX, uniform in [0.00, 0.08], in hundredths.
	MaxDiscountPct = 10
	MaxTaxPct      = 8
	// ShipDays: L_SHIPDATE is O_ORDERDATE + [1, 121] days.
	MinShipDays, MaxShipDays = 1, 121
	// CommitDays: L_COMMITDATE is O_ORDERDATE + [30, 90] days.
	MinCommitDays, MaxCommitDays = 30, 90
	// ReceiptDays: L_RECEIPTDATE is L_SHIPDATE + [1, 30] days.
	MinReceiptDays, MaxReceiptDays = 1, 30
	// OrderDateSlack: O_ORDERDATE is uniform in [STARTDATE, ENDDATE - 151
	// days], so that every line ships and is received by ENDDATE (151 =
	// 121 + 30).
	OrderDateSlack = MaxShipDays + MaxReceiptDays
	// MinCommentLen and MaxCommentLen bound L_COMMENT's length: text
	// string [10, 43] (clause 4.2.2.10).
	MinCommentLen, MaxCommentLen = 10, 43
	// Q1's DELTA is uniform in [60, 120] days (clause 2.4.1.3).
	MinQ1Delta, MaxQ1Delta = 60, 120
)

// Q1Cutoff is Q1's last shipdate for delta: 1998-12-01 minus delta days.
func Q1Cutoff(delta int) Date { return Q1Date - Date(delta) }

// LastOrderDate is the last O_ORDERDATE, ENDDATE - 151 days (1998-08-02).
var LastOrderDate = EndDate - OrderDateSlack

// ShipInstructions and ShipModes are the values of L_SHIPINSTRUCT and
// L_SHIPMODE (clause 4.2.2.13, dbgen's dists.dss).
var (
	ShipInstructions = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	ShipModes        = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
)

// SparseKey returns the order key of the i-th order, i counted from 1: as
// dbgen's mk_sparse, only the first 8 of every 32 keys are used (clause
// 4.2.3: "O_ORDERKEY unique within [SF * 1,500,000 * 4]"), so orders 1..7
// have keys 1..7, orders 8..15 keys 32..39, and so on.
func SparseKey(i int64) int64 {
	const keep, bits = 3, 2 // dbgen's SPARSE_KEEP and SPARSE_BITS
	low := i & (1<<keep - 1)
	return (i>>keep)<<(keep+bits) | low
}

// RetailPriceCents is P_RETAILPRICE of part partkey in cents: clause 4.2.3's
// (90000 + ((P_PARTKEY/10) modulo 20001) + 100 * (P_PARTKEY modulo 1000))/100.
func RetailPriceCents(partkey int64) int64 {
	return 90000 + (partkey/10)%20001 + 100*(partkey%1000)
}

// SuppKey returns the i-th (0..3) supplier of part partkey among suppliers
// suppliers: clause 4.2.3's PS_SUPPKEY = (ps_partkey + (i * (( S/4 ) +
// (int)(ps_partkey-1 )/S)))) modulo S + 1, which L_SUPPKEY uses with i
// random in [0, 3].
func SuppKey(partkey int64, i int, suppliers int64) int64 {
	s := suppliers
	return (partkey+int64(i)*(s/4+(partkey-1)/s))%s + 1
}

// Scale is the table cardinalities of one scale factor.
type Scale struct {
	Orders, Parts, Suppliers int64
}

// ScaleOf returns the cardinalities of scale factor sf, rounded to whole
// rows (dbgen scales the base cardinalities the same way for SF < 1).
func ScaleOf(sf float64) (Scale, error) {
	if !(sf > 0) || sf > MaxSF {
		return Scale{}, fmt.Errorf("tpch: scale factor %v out of range (0, %d]", sf, MaxSF)
	}
	s := Scale{Orders: round(sf * OrdersPerSF), Parts: round(sf * PartsPerSF), Suppliers: round(sf * SuppliersPerSF)}
	if s.Suppliers < 1 {
		return Scale{}, fmt.Errorf("tpch: scale factor %v is below %v, the smallest with one supplier (SF x %d)",
			sf, MinSF, SuppliersPerSF)
	}
	return s, nil
}

// MinSF and MaxSF bound the scale factor: at MinSF there is one supplier,
// 20 parts and 150 orders; MaxSF (about 6 billion line items) only guards
// against a mistyped value.
const (
	MinSF = 0.0001
	MaxSF = 1000
)

func round(x float64) int64 { return int64(x + 0.5) }
