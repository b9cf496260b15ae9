package natstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The jsz-*.json fixtures were captured from the three-node loopback trial
// of deploy/nats (leader mv-nats-a; jsz-follower.json is mv-nats-b's view)
// and edited where their names say so.
func loadJSZ(t testing.TB, name string) jsz {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	requireNoErr(t, err, "read fixture")
	v, err := decodeJSZ(data)
	requireNoErr(t, err, "decode "+name)
	return v
}

func TestDecodeJSZ(t *testing.T) {
	good, err := filepath.Glob("testdata/jsz-*.json")
	requireNoErr(t, err, "glob")
	bad, err := filepath.Glob("testdata/bad-jsz-*.json")
	requireNoErr(t, err, "glob")
	if len(good) == 0 || len(bad) == 0 {
		t.Fatalf("fixtures missing: %d good, %d bad", len(good), len(bad))
	}
	wantErr := map[string]string{
		"bad-jsz-array.json":          "cannot unmarshal array",
		"bad-jsz-disabled.json":       "JetStream is disabled",
		"bad-jsz-nameless-peer.json":  "replicas[0] has no name",
		"bad-jsz-no-server-id.json":   "no server_id",
		"bad-jsz-trailing.json":       "trailing data",
		"bad-jsz-not-json.json":       "invalid character",
		"bad-jsz-truncated.json":      "unexpected EOF",
		"bad-jsz-null-replicas.json":  "replicas[1] has no name",
		"bad-jsz-wrong-type.json":     "cannot unmarshal string",
		"bad-jsz-empty.json":          "EOF",
		"bad-jsz-leader-number.json":  "cannot unmarshal number",
		"bad-jsz-streams-string.json": "cannot unmarshal string",
	}
	for _, path := range good {
		t.Run(filepath.Base(path), func(t *testing.T) {
			v := loadJSZ(t, filepath.Base(path))
			requireEqual(t, v.Config.SyncAlways, true, "sync_always")
		})
	}
	for _, path := range bad {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			want, ok := wantErr[name]
			if !ok {
				t.Fatalf("no expected error listed for %s", name)
			}
			data, err := os.ReadFile(path)
			requireNoErr(t, err, "read")
			_, err = decodeJSZ(data)
			requireErrIs(t, err, errBadJSZ)
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error = %v, want it to mention %q", err, want)
			}
		})
	}
}

func TestClusterHealthy(t *testing.T) {
	leader := loadJSZ(t, "jsz-leader.json")
	follower := loadJSZ(t, "jsz-follower.json")
	lagging := loadJSZ(t, "jsz-leader-lagging.json")
	noLeader := loadJSZ(t, "jsz-no-leader.json")
	standalone := loadJSZ(t, "jsz-standalone.json")
	otherLeader := loadJSZ(t, "jsz-follower.json")
	otherLeader.Meta.Leader = "mv-nats-c"

	tests := []struct {
		name    string
		views   map[string]jsz
		wantErr string
	}{
		{"all current", map[string]jsz{"mv-nats-a": leader, "mv-nats-b": follower, "mv-nats-c": follower}, ""},
		{"a follower down", map[string]jsz{"mv-nats-a": leader, "mv-nats-c": follower}, ""},
		{"leader down", map[string]jsz{"mv-nats-b": follower, "mv-nats-c": follower}, "meta leader mv-nats-a is not a running member"},
		{"peer not current", map[string]jsz{"mv-nats-a": lagging, "mv-nats-b": follower, "mv-nats-c": follower}, "meta leader mv-nats-a: peers mv-nats-c (not current)"},
		{"lagging peer down", map[string]jsz{"mv-nats-a": lagging, "mv-nats-b": follower}, ""},
		{"no leader yet", map[string]jsz{"mv-nats-a": leader, "mv-nats-b": noLeader}, "mv-nats-b sees no meta leader"},
		{"split views", map[string]jsz{"mv-nats-a": leader, "mv-nats-b": otherLeader}, "mv-nats-b sees meta leader mv-nats-c, others see mv-nats-a"},
		{"unknown member", map[string]jsz{"mv-nats-a": leader, "mv-nats-d": follower}, "meta leader mv-nats-a: peers mv-nats-d (unknown to the leader)"},
		{"not clustered", map[string]jsz{"mv-nats-a": standalone}, "mv-nats-a reports no meta group (not clustered?)"},
		{"nothing running", map[string]jsz{}, "no running servers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := clusterHealthy(tc.views)
			if tc.wantErr == "" {
				requireNoErr(t, err, "clusterHealthy")
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("clusterHealthy = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// FuzzDecodeJSZ feeds arbitrary documents to the decoder and the health
// check: neither may panic, a decoded document has no nameless peer, and
// the verdict on a document is stable.
func FuzzDecodeJSZ(f *testing.F) {
	paths, err := filepath.Glob("testdata/*jsz-*.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "mv-nats-a")
	}
	f.Add([]byte(`{"server_id":"S","meta_cluster":{"leader":"x","replicas":[]}}`), "x")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		v, err := decodeJSZ(data)
		if err != nil {
			return
		}
		if v.ServerID == "" || v.Disabled {
			t.Fatalf("decoded a document without server_id or with JetStream disabled: %+v", v)
		}
		if v.Meta != nil {
			for _, p := range v.Meta.Replicas {
				if p == nil || p.Name == "" {
					t.Fatal("decoded a nameless peer")
				}
			}
		}
		views := map[string]jsz{name: v}
		first := clusterHealthy(views)
		second := clusterHealthy(views)
		if (first == nil) != (second == nil) || (first != nil && first.Error() != second.Error()) {
			t.Fatalf("unstable verdict: %v then %v", first, second)
		}
		if first == nil && (v.Meta == nil || v.Meta.Leader != name) {
			t.Fatalf("a lone server %q that is not its own meta leader was judged healthy: %+v", name, v.Meta)
		}
	})
}
