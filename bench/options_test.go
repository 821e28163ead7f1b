package bench

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestPoolSize: a connection per client and 16 to spare, at most 256 per
// member; a size the URI or the client options give is kept.
func TestPoolSize(t *testing.T) {
	uri := "mongodb://h1,h2,h3/?replicaSet=rs0"
	tests := []struct {
		name    string
		o       Options
		want    uint64
		keepsIt bool
	}{
		{name: "64 clients", o: Options{URI: uri, Clients: 64}, want: 80},
		{name: "a phase's 180", o: Options{URI: uri, Clients: 20, Phases: []Phase{{Clients: 180}}}, want: 196},
		{name: "1000 clients", o: Options{URI: uri, Clients: 1000}, want: 256},
		{name: "the URI's", o: Options{URI: uri + "&maxPoolSize=50", Clients: 1000}, keepsIt: true},
		{name: "the client options'", o: Options{URI: uri, Clients: 1000,
			ClientOptions: []*options.ClientOptions{options.Client().SetMaxPoolSize(2000)}}, keepsIt: true},
	}
	for _, tt := range tests {
		n, ok := tt.o.poolSize()
		if ok == tt.keepsIt || n != tt.want {
			t.Errorf("%s: pool %d (set %v), want %d (set %v)", tt.name, n, ok, tt.want, !tt.keepsIt)
		}
	}
}
