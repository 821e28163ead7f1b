package upstream

import (
	"cmp"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/description"
)

// Role is what the driver's last heartbeat (or an error since) says a member
// is. The zero Role is invalid.
type Role uint8

// The roles.
const (
	_ Role = iota
	// RoleUnknown: not reached yet, or down since its last error.
	RoleUnknown
	// RolePrimary and RoleSecondary are the data-bearing members of a
	// replica set in those states.
	RolePrimary
	RoleSecondary
	// RoleArbiter votes and holds no data.
	RoleArbiter
	// RoleOther: a member in another state (starting up, recovering,
	// rolling back) or not yet in the set's configuration.
	RoleOther
	// RoleStandalone: a mongod that is not a replica set member (a URI
	// with directConnection=true to one).
	RoleStandalone
)

var roleNames = [...]string{"invalid", "unknown", "primary", "secondary", "arbiter", "other", "standalone"}

// String returns the role's name, "invalid" for the zero Role and unknown
// values.
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return roleNames[0]
}

// roleOf maps the driver's server kind to a Role.
func roleOf(k description.ServerKind) Role {
	switch k {
	case description.ServerKindRSPrimary:
		return RolePrimary
	case description.ServerKindRSSecondary:
		return RoleSecondary
	case description.ServerKindRSArbiter:
		return RoleArbiter
	case description.ServerKindRSMember, description.ServerKindRSGhost:
		return RoleOther
	case description.ServerKindStandalone:
		return RoleStandalone
	default: // Unknown; mongos and load balancers are refused by New
		return RoleUnknown
	}
}

// Member is one member as the driver's topology describes it, with what the
// proxy's own hello reply advertises: the wire versions and limits. The
// limits are 0 while the member is unknown.
type Member struct {
	// Addr is host:port as the set's configuration names the member, the
	// address RoundTrip takes.
	Addr string
	Role Role
	// SetName is the replica set's name, "" for a standalone.
	SetName string
	// MinWireVersion and MaxWireVersion are the member's hello
	// minWireVersion and maxWireVersion.
	MinWireVersion, MaxWireVersion int32
	// MaxBSONObjectSize (maxBsonObjectSize), MaxMessageSizeBytes and
	// MaxWriteBatchSize are the member's limits.
	MaxBSONObjectSize   int64
	MaxMessageSizeBytes int64
	MaxWriteBatchSize   int64
	// SessionTimeoutMinutes is logicalSessionTimeoutMinutes, 0 when the
	// member does not support sessions.
	SessionTimeoutMinutes int64
	// Tags are the member's replica set tags, nil without any.
	Tags map[string]string
	// RTT is the driver's average heartbeat round trip, 0 before one.
	RTT time.Duration
	// LastWrite is the member's lastWrite.lastWriteDate as of its last
	// heartbeat (the zero time when unknown).
	LastWrite time.Time
	// Err is why the member is RoleUnknown, when the driver knows (its
	// credentials, if quoted, are redacted); nil otherwise.
	Err error
}

// memberOf builds a Member from the driver's description of a server;
// redactErr scrubs a description's error.
func memberOf(s description.Server, redactErr func(error) error) Member {
	m := Member{
		Addr:                string(s.Addr),
		Role:                roleOf(s.Kind),
		SetName:             s.SetName,
		MaxBSONObjectSize:   int64(s.MaxDocumentSize),
		MaxMessageSizeBytes: int64(s.MaxMessageSize),
		MaxWriteBatchSize:   int64(s.MaxBatchCount),
		LastWrite:           s.LastWriteTime,
	}
	if s.WireVersion != nil {
		m.MinWireVersion, m.MaxWireVersion = s.WireVersion.Min, s.WireVersion.Max
	}
	if s.SessionTimeoutMinutes != nil {
		m.SessionTimeoutMinutes = *s.SessionTimeoutMinutes
	}
	if len(s.Tags) > 0 {
		m.Tags = make(map[string]string, len(s.Tags))
		for _, t := range s.Tags {
			m.Tags[t.Name] = t.Value
		}
	}
	if s.AverageRTTSet {
		m.RTT = s.AverageRTT
	}
	if m.Role == RoleUnknown && s.LastError != nil {
		m.Err = redactErr(s.LastError)
	}
	return m
}

// membersOf returns the members of a topology description, by address.
func membersOf(t description.Topology, redactErr func(error) error) []Member {
	ms := make([]Member, 0, len(t.Servers))
	for _, s := range t.Servers {
		ms = append(ms, memberOf(s, redactErr))
	}
	slices.SortFunc(ms, func(a, b Member) int { return cmp.Compare(a.Addr, b.Addr) })
	return ms
}
