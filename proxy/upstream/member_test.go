package upstream

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/address"
	"go.mongodb.org/mongo-driver/v2/tag"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/description"

	"github.com/decongestant/decongestant/internal/redact"
)

func TestRoleOf(t *testing.T) {
	for k, want := range map[description.ServerKind]Role{
		description.Unknown:                 RoleUnknown,
		description.ServerKindRSPrimary:     RolePrimary,
		description.ServerKindRSSecondary:   RoleSecondary,
		description.ServerKindRSArbiter:     RoleArbiter,
		description.ServerKindRSMember:      RoleOther,
		description.ServerKindRSGhost:       RoleOther,
		description.ServerKindStandalone:    RoleStandalone,
		description.ServerKindMongos:        RoleUnknown,
		description.ServerKindLoadBalancer:  RoleUnknown,
		description.ServerKind(12345):       RoleUnknown,
		description.ServerKindRSPrimary | 1: RoleUnknown,
	} {
		if got := roleOf(k); got != want {
			t.Errorf("roleOf(%v) = %v, want %v", k, got, want)
		}
	}
}

func TestRoleString(t *testing.T) {
	for r, want := range map[Role]string{0: "invalid", RoleUnknown: "unknown", RolePrimary: "primary", RoleSecondary: "secondary",
		RoleArbiter: "arbiter", RoleOther: "other", RoleStandalone: "standalone", 99: "invalid"} {
		if got := r.String(); got != want {
			t.Errorf("Role(%d).String() = %q, want %q", r, got, want)
		}
	}
}

func TestMembersOf(t *testing.T) {
	const uri = "mongodb://app:s3cret-pw@h1,h2/?replicaSet=rs0"
	sessions := int64(30)
	lastWrite := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	topo := description.Topology{Servers: []description.Server{
		{
			Addr: "h2:27017", Kind: description.ServerKindRSSecondary, SetName: "rs0",
			WireVersion: &description.VersionRange{Min: 0, Max: 17}, MaxDocumentSize: 16777216, MaxMessageSize: 48000000,
			MaxBatchCount: 100000, SessionTimeoutMinutes: &sessions, Tags: tag.Set{{Name: "node", Value: "n2"}, {Name: "dc", Value: "east"}},
			AverageRTT: 3 * time.Millisecond, AverageRTTSet: true, LastWriteTime: lastWrite,
		},
		{Addr: "h1:27017", Kind: description.Unknown, LastError: errors.New("auth error: mongodb://app:s3cret-pw@h1 refused"), AverageRTT: time.Second},
	}}
	p := &Pool{secrets: redact.Secrets(uri)}
	got := membersOf(topo, p.redact)
	want := []Member{
		{Addr: "h1:27017", Role: RoleUnknown},
		{
			Addr: "h2:27017", Role: RoleSecondary, SetName: "rs0", MinWireVersion: 0, MaxWireVersion: 17,
			MaxBSONObjectSize: 16777216, MaxMessageSizeBytes: 48000000, MaxWriteBatchSize: 100000, SessionTimeoutMinutes: 30,
			Tags: map[string]string{"node": "n2", "dc": "east"}, RTT: 3 * time.Millisecond, LastWrite: lastWrite,
		},
	}
	if len(got) != 2 {
		t.Fatalf("members %+v", got)
	}
	if got[0].Err == nil || got[0].Err.Error() != "auth error: mongodb://app:REDACTED@h1 refused" {
		t.Errorf("unknown member's Err = %v, want the heartbeat error without the password", got[0].Err)
	}
	got[0].Err = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("membersOf =\n%+v\nwant\n%+v", got, want)
	}
	if s := (description.Server{Addr: address.Address("h3:1"), Kind: description.ServerKindRSArbiter}); memberOf(s, p.redact).Err != nil {
		t.Errorf("a known member has no Err")
	}
}
