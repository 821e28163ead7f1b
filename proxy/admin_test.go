package proxy

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// With RefuseAdminCommands, administration commands get Unauthorized from
// the proxy itself (the Server here has no upstream pool: a command that
// reached forward would panic); the others are answered or forwarded as
// before.
func TestRefuseAdminCommands(t *testing.T) {
	s := &Server{cfg: Config{RefuseAdminCommands: true}.withDefaults()}
	s.log = s.cfg.Logger
	cc := &clientConn{id: 1, remote: "test"}
	for _, cmd := range []string{"shutdown", "replSetReconfig", "replSetStepDown", "setFeatureCompatibilityVersion",
		"createUser", "dropUser", "grantRolesToUser", "killAllSessions", "fsync", "setParameter", "_flushRoutingTableCacheUpdates"} {
		r := do(t, s, cc, bson.D{{Key: cmd, Value: 1}, {Key: "$db", Value: "admin"}})
		wantError(t, r, codeUnauthorized, "not authorized to execute command "+cmd+" through the decongestant proxy")
	}
	if r := do(t, s, cc, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}); r.Lookup("ok").Double() != 1 {
		t.Fatalf("ping with RefuseAdminCommands: %v", r)
	}
	for _, cmd := range []string{"find", "insert", "aggregate", "create", "drop", "dropDatabase", "createIndexes",
		"endSessions", "killSessions", "commitTransaction", "replSetGetStatus", "serverStatus", "currentOp", "getParameter", "listDatabases"} {
		if isAdminCommand(cmd) {
			t.Errorf("%s is refused; want it forwarded", cmd)
		}
	}
}
