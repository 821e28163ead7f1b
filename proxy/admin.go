package proxy

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// adminCommands are the commands Config.RefuseAdminCommands refuses: those
// that act on the whole replica set or server, not on an application's
// data (MongoDB's command reference: the administration, replication,
// user management and role management commands). Every proxy user runs
// commands as the URI's user, so with a user that may administer the set
// any client could run them; with the switch none can, whatever the URI's
// user may do. Left alone: the reads of administration (serverStatus,
// currentOp, replSetGetStatus, getParameter, hostInfo, listDatabases),
// which monitoring and shells need, and the database commands an
// application runs (create, drop, dropDatabase, createIndexes,
// renameCollection, collMod, profile), which the URI's user's roles bound.
var adminCommands = map[string]bool{
	// Server and process.
	"shutdown": true, "fsync": true, "fsyncUnlock": true, "setParameter": true,
	"setClusterParameter": true, "setFeatureCompatibilityVersion": true,
	"setDefaultRWConcern": true, "logRotate": true, "rotateCertificates": true,
	"compact": true, "autoCompact": true, "dropConnections": true,
	"killOp": true, "killAllSessions": true, "killAllSessionsByPattern": true,
	"configureFailPoint": true,
	// Replication.
	"replSetReconfig": true, "replSetStepDown": true, "replSetFreeze": true,
	"replSetInitiate": true, "replSetMaintenance": true, "replSetSyncFrom": true,
	"replSetAbortPrimaryCatchUp": true, "replSetResizeOplog": true,
	"appendOplogNote": true, "applyOps": true,
	// Users and roles.
	"createUser": true, "updateUser": true, "dropUser": true, "dropAllUsersFromDatabase": true,
	"grantRolesToUser": true, "revokeRolesFromUser": true,
	"createRole": true, "updateRole": true, "dropRole": true, "dropAllRolesFromDatabase": true,
	"grantPrivilegesToRole": true, "revokePrivilegesFromRole": true,
	"grantRolesToRole": true, "revokeRolesFromRole": true, "invalidateUserCache": true,
}

// isAdminCommand reports whether RefuseAdminCommands refuses name: one of
// adminCommands, or an internal command (a name starting with "_", which
// members send each other and clients never need).
func isAdminCommand(name string) bool {
	return adminCommands[name] || strings.HasPrefix(name, "_")
}

// refusedAdmin is the reply to a refused administration command, worded
// as the server's Unauthorized.
func refusedAdmin(name string) bsoncore.Document {
	return errorDoc(codeUnauthorized, fmt.Sprintf("not authorized to execute command %s through the decongestant proxy: it refuses cluster administration commands (every client runs as the proxy's own user); run them against the replica set directly", name))
}
