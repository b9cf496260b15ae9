package eventlog_test

import (
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

func TestPretty(t *testing.T) {
	at := time.Date(2026, 3, 1, 11, 0, 0, 123_456_789, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name string
		e    eventlog.Event
		want string
	}{
		{"minimal", eventlog.Event{Seq: 1, Kind: eventlog.KindRunStart, Time: at},
			"2026-03-01T10:00:00.123Z #1 run_start"},
		{"action end", eventlog.Event{Seq: 12, Kind: eventlog.KindActionEnd, Time: at, BranchID: "01HZX3K5V7Q8R9S0T1C3D4E5F6", VirtualTime: 1500,
			Payload:   []byte(`{"duration_ms":12,"action":"click","status":"ok","selector":"[data-testid=buy]"}`),
			Artifacts: []string{"a", "b"}},
			`2026-03-01T10:00:00.123Z #12 action_end    br:…C3D4E5F6 vt=1500ms status=ok action=click duration_ms=12 selector="[data-testid=buy]" [2 artifacts]`},
		{"short branch", eventlog.Event{Seq: 2, Kind: eventlog.KindBranchFork, Time: at, BranchID: "b1", Payload: []byte(`{"parent_id":"b0","depth":1}`)},
			"2026-03-01T10:00:00.123Z #2 branch_fork   br:b1 parent_id=b0 depth=1"},
		{"quoting and nesting", eventlog.Event{Seq: 3, Kind: eventlog.KindError, Time: at,
			Payload: []byte(`{"message":"boom\nline two","detail":{"a":1,"b":2},"list":[1,2,3],"empty":"","n":null}`), Artifacts: []string{"x"}},
			`2026-03-01T10:00:00.123Z #3 error         message="boom\nline two" detail={2} empty="" list=[3] n=null [1 artifact]`},
		{"many fields", eventlog.Event{Seq: 4, Kind: eventlog.KindMetricUpdate, Time: at,
			Payload: []byte(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}`)},
			"2026-03-01T10:00:00.123Z #4 metric_update a=1 b=2 c=3 d=4 e=5 f=6 …+2"},
		{"long value", eventlog.Event{Seq: 5, Kind: eventlog.KindNav, Time: at,
			Payload: []byte(`{"url":"https://vendor.example/` + strings.Repeat("p", 80) + `"}`)},
			"2026-03-01T10:00:00.123Z #5 nav           url=https://vendor.example/" + strings.Repeat("p", 37) + "…"},
		{"scalar payload", eventlog.Event{Seq: 6, Kind: "custom", Time: at, Payload: []byte(`"just text"`)},
			`2026-03-01T10:00:00.123Z #6 custom        payload="just text"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := eventlog.Pretty(tc.e)
			if got != tc.want {
				t.Fatalf("Pretty =\n%s\nwant\n%s", got, tc.want)
			}
			if strings.ContainsAny(got, "\n\r") {
				t.Fatalf("Pretty output spans lines: %q", got)
			}
		})
	}
}
