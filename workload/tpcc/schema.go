package tpcc

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collection names: the TPC-C tables, upper case, as in the reference
// implementation of the TPC-C-on-MongoDB paper (py-tpcc's MongoDB driver).
const (
	collItem      = "ITEM"
	collWarehouse = "WAREHOUSE"
	collDistrict  = "DISTRICT"
	collCustomer  = "CUSTOMER"
	collStock     = "STOCK"
	collOrders    = "ORDERS"
	collNewOrder  = "NEW_ORDER"
	collHistory   = "HISTORY"
	// collOrderLine exists only in the normalized schema; the denormalized
	// schema embeds the lines in ORDERS under the field fieldOrderLines.
	collOrderLine = "ORDER_LINE"
	// fieldOrderLines is the array of order lines embedded in an ORDERS
	// document in the denormalized schema.
	fieldOrderLines = "ORDER_LINE"
)

// schemaCollections returns the collections a schema uses, in load order.
func schemaCollections(s Schema) []string {
	c := []string{collItem, collWarehouse, collDistrict, collCustomer, collHistory, collStock, collOrders, collNewOrder}
	if s == Normalized {
		c = append(c, collOrderLine)
	}
	return c
}

// Schema selects how order lines are stored.
type Schema uint8

const (
	// Denormalized embeds each order's lines in its ORDERS document (the
	// TPC-C-on-MongoDB paper, §4.5.3); the default.
	Denormalized Schema = iota + 1
	// Normalized keeps the lines in their own ORDER_LINE collection, as the
	// TPC-C specification's tables.
	Normalized
)

// String returns "denormalized" or "normalized".
func (s Schema) String() string {
	switch s {
	case Denormalized:
		return "denormalized"
	case Normalized:
		return "normalized"
	}
	return fmt.Sprintf("schema(%d)", uint8(s))
}

// ParseSchema accepts "denormalized" (or "denorm") and "normalized" (or "norm").
func ParseSchema(s string) (Schema, error) {
	switch s {
	case "denormalized", "denorm":
		return Denormalized, nil
	case "normalized", "norm":
		return Normalized, nil
	}
	return 0, fmt.Errorf("unknown schema %q (want denormalized or normalized)", s)
}

// Scale is the cardinality of the database per TPC-C clause 4.3.3.1 (and
// clause 1.2). StandardScale is what the specification requires; smaller
// scales exist for tests and quick experiments and are recorded in results.
type Scale struct {
	// Items is the number of ITEM rows and of STOCK rows per warehouse.
	Items int `json:"items"`
	// Districts per warehouse.
	Districts int `json:"districts"`
	// Customers per district; also the number of orders loaded per district.
	Customers int `json:"customers"`
	// NewOrders is how many of the last loaded orders of every district are
	// undelivered (have a NEW_ORDER row).
	NewOrders int `json:"new_orders"`
}

// StandardScale returns the cardinalities of TPC-C clause 4.3.3.1.
func StandardScale() Scale {
	return Scale{Items: 100000, Districts: 10, Customers: 3000, NewOrders: 900}
}

// Validate reports a scale the transactions cannot run against.
func (s Scale) Validate() error {
	switch {
	case s.Items < 10:
		return fmt.Errorf("scale: items %d must be at least 10", s.Items)
	case s.Districts < 1 || s.Districts > 99:
		return fmt.Errorf("scale: districts %d must be in 1..99", s.Districts)
	case s.Customers < 3:
		return fmt.Errorf("scale: customers per district %d must be at least 3", s.Customers)
	case s.NewOrders < 1 || s.NewOrders >= s.Customers:
		return fmt.Errorf("scale: new orders per district %d must be in 1..%d", s.NewOrders, s.Customers-1)
	}
	return nil
}

// Document types. Field names are the TPC-C column names in upper case;
// money is a float64 (as py-tpcc), dates are BSON dates.

// itemDoc is a row of ITEM (clause 1.3.1) with py-tpcc's extra I_W_ID.
type itemDoc struct {
	ID    int     `bson:"I_ID"`
	ImID  int     `bson:"I_IM_ID"`
	Name  string  `bson:"I_NAME"`
	Price float64 `bson:"I_PRICE"`
	Data  string  `bson:"I_DATA"`
	// WID is always 0. It is not a TPC-C column: py-tpcc's MongoDB driver
	// keeps one ITEM copy per shard keyed by I_W_ID, 0 when unsharded, and
	// its New-Order finds items by (I_ID, I_W_ID 0); without the field it
	// finds none and rolls every order back.
	WID int `bson:"I_W_ID"`
}

// warehouseDoc is a row of WAREHOUSE (clause 1.3.1).
type warehouseDoc struct {
	ID      int     `bson:"W_ID"`
	Name    string  `bson:"W_NAME"`
	Street1 string  `bson:"W_STREET_1"`
	Street2 string  `bson:"W_STREET_2"`
	City    string  `bson:"W_CITY"`
	State   string  `bson:"W_STATE"`
	Zip     string  `bson:"W_ZIP"`
	Tax     float64 `bson:"W_TAX"`
	YTD     float64 `bson:"W_YTD"`
}

// districtDoc is a row of DISTRICT.
type districtDoc struct {
	ID      int     `bson:"D_ID"`
	WID     int     `bson:"D_W_ID"`
	Name    string  `bson:"D_NAME"`
	Street1 string  `bson:"D_STREET_1"`
	Street2 string  `bson:"D_STREET_2"`
	City    string  `bson:"D_CITY"`
	State   string  `bson:"D_STATE"`
	Zip     string  `bson:"D_ZIP"`
	Tax     float64 `bson:"D_TAX"`
	YTD     float64 `bson:"D_YTD"`
	NextOID int     `bson:"D_NEXT_O_ID"`
}

// customerDoc is a row of CUSTOMER.
type customerDoc struct {
	ID          int       `bson:"C_ID"`
	DID         int       `bson:"C_D_ID"`
	WID         int       `bson:"C_W_ID"`
	First       string    `bson:"C_FIRST"`
	Middle      string    `bson:"C_MIDDLE"`
	Last        string    `bson:"C_LAST"`
	Street1     string    `bson:"C_STREET_1"`
	Street2     string    `bson:"C_STREET_2"`
	City        string    `bson:"C_CITY"`
	State       string    `bson:"C_STATE"`
	Zip         string    `bson:"C_ZIP"`
	Phone       string    `bson:"C_PHONE"`
	Since       time.Time `bson:"C_SINCE"`
	Credit      string    `bson:"C_CREDIT"`
	CreditLim   float64   `bson:"C_CREDIT_LIM"`
	Discount    float64   `bson:"C_DISCOUNT"`
	Balance     float64   `bson:"C_BALANCE"`
	YTDPayment  float64   `bson:"C_YTD_PAYMENT"`
	PaymentCnt  int       `bson:"C_PAYMENT_CNT"`
	DeliveryCnt int       `bson:"C_DELIVERY_CNT"`
	Data        string    `bson:"C_DATA"`
}

// historyDoc is a row of HISTORY.
type historyDoc struct {
	CID    int       `bson:"H_C_ID"`
	CDID   int       `bson:"H_C_D_ID"`
	CWID   int       `bson:"H_C_W_ID"`
	DID    int       `bson:"H_D_ID"`
	WID    int       `bson:"H_W_ID"`
	Date   time.Time `bson:"H_DATE"`
	Amount float64   `bson:"H_AMOUNT"`
	Data   string    `bson:"H_DATA"`
}

// stockDoc is a row of STOCK. Dist holds S_DIST_01 … S_DIST_10.
type stockDoc struct {
	IID       int    `bson:"S_I_ID"`
	WID       int    `bson:"S_W_ID"`
	Quantity  int    `bson:"S_QUANTITY"`
	Dist01    string `bson:"S_DIST_01"`
	Dist02    string `bson:"S_DIST_02"`
	Dist03    string `bson:"S_DIST_03"`
	Dist04    string `bson:"S_DIST_04"`
	Dist05    string `bson:"S_DIST_05"`
	Dist06    string `bson:"S_DIST_06"`
	Dist07    string `bson:"S_DIST_07"`
	Dist08    string `bson:"S_DIST_08"`
	Dist09    string `bson:"S_DIST_09"`
	Dist10    string `bson:"S_DIST_10"`
	YTD       int    `bson:"S_YTD"`
	OrderCnt  int    `bson:"S_ORDER_CNT"`
	RemoteCnt int    `bson:"S_REMOTE_CNT"`
	Data      string `bson:"S_DATA"`
}

// distField returns the name of the S_DIST_xx field for district d (1-based),
// e.g. "S_DIST_03". Districts above 10 (only in non-standard scales) reuse
// the ten fields cyclically.
func distField(d int) string { return fmt.Sprintf("S_DIST_%02d", (d-1)%10+1) }

// orderDoc is a row of ORDERS. In the denormalized schema Lines holds the
// order's lines; in the normalized schema it is empty and the lines are
// ORDER_LINE documents.
type orderDoc struct {
	ID     int       `bson:"O_ID"`
	CID    int       `bson:"O_C_ID"`
	DID    int       `bson:"O_D_ID"`
	WID    int       `bson:"O_W_ID"`
	EntryD time.Time `bson:"O_ENTRY_D"`
	// CarrierID is 0 while the order is undelivered (py-tpcc's
	// NULL_CARRIER_ID), 1..10 once delivered.
	CarrierID int            `bson:"O_CARRIER_ID"`
	OLCnt     int            `bson:"O_OL_CNT"`
	AllLocal  int            `bson:"O_ALL_LOCAL"`
	Lines     []orderLineDoc `bson:"ORDER_LINE,omitempty"`
}

// orderLineDoc is a row of ORDER_LINE or an element of ORDERS.ORDER_LINE.
// Embedded lines omit OL_O_ID, OL_D_ID and OL_W_ID: their order holds them
// (which is why the TPC-C-on-MongoDB paper found the denormalized database
// smaller).
type orderLineDoc struct {
	OID       int `bson:"OL_O_ID,omitempty"`
	DID       int `bson:"OL_D_ID,omitempty"`
	WID       int `bson:"OL_W_ID,omitempty"`
	Number    int `bson:"OL_NUMBER"`
	IID       int `bson:"OL_I_ID"`
	SupplyWID int `bson:"OL_SUPPLY_W_ID"`
	// DeliveryD is null until the order is delivered.
	DeliveryD *time.Time `bson:"OL_DELIVERY_D"`
	Quantity  int        `bson:"OL_QUANTITY"`
	Amount    float64    `bson:"OL_AMOUNT"`
	DistInfo  string     `bson:"OL_DIST_INFO"`
}

// newOrderDoc is a row of NEW_ORDER.
type newOrderDoc struct {
	OID int `bson:"NO_O_ID"`
	DID int `bson:"NO_D_ID"`
	WID int `bson:"NO_W_ID"`
}

// schemaIndexes returns the indexes of the TPC-C-on-MongoDB paper, appendix B
// for each collection of the schema (its O_ENTRY_ID typo corrected to
// O_ENTRY_D). The first index of ITEM, WAREHOUSE, DISTRICT, CUSTOMER, STOCK,
// ORDERS and NEW_ORDER is unique: it is the table's primary key.
func schemaIndexes(s Schema) map[string][]mongo.IndexModel {
	unique := func(keys bson.D) mongo.IndexModel {
		return mongo.IndexModel{Keys: keys, Options: options.Index().SetUnique(true)}
	}
	plain := func(keys bson.D) mongo.IndexModel { return mongo.IndexModel{Keys: keys} }
	k := func(names ...string) bson.D {
		d := make(bson.D, len(names))
		for i, n := range names {
			d[i] = bson.E{Key: n, Value: 1}
		}
		return d
	}
	m := map[string][]mongo.IndexModel{
		collItem:      {unique(k("I_ID"))},
		collWarehouse: {unique(k("W_ID", "W_TAX"))},
		collDistrict:  {unique(k("D_W_ID", "D_ID", "D_NEXT_O_ID", "D_TAX"))},
		collCustomer:  {unique(k("C_W_ID", "C_D_ID", "C_ID")), plain(k("C_W_ID", "C_D_ID", "C_LAST"))},
		collStock:     {unique(k("S_W_ID", "S_I_ID", "S_QUANTITY"))},
		collNewOrder:  {unique(k("NO_W_ID", "NO_D_ID", "NO_O_ID"))},
		collOrders: {unique(k("O_W_ID", "O_D_ID", "O_ID", "O_C_ID")),
			plain(k("O_W_ID", "O_D_ID", "O_C_ID", "O_ID", "O_CARRIER_ID", "O_ENTRY_D"))},
	}
	if s == Normalized {
		m[collOrderLine] = []mongo.IndexModel{
			unique(k("OL_O_ID", "OL_D_ID", "OL_W_ID", "OL_NUMBER")),
			plain(k("OL_O_ID", "OL_D_ID", "OL_W_ID", "OL_I_ID", "OL_AMOUNT")),
		}
	}
	return m
}
