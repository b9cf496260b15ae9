package dashboard_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/dashboard"
)

// BenchmarkRunsList lists a data dir of 100 finished runs holding 10,000
// branches in all (written through the eventlog API), as GET /api/runs
// does.
func BenchmarkRunsList(b *testing.B) {
	const runs, branches = 100, 100
	s := newSynthLog(b)
	for i := 0; i < runs; i++ {
		r := s.start(b, "bench")
		r.forks(b, branches)
		r.commit(b, fmt.Sprintf("ORD-%06d", i))
		r.end(b, "committed")
	}
	srv, err := dashboard.New(openStores(b, s.dir))
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/api/runs", nil)
	check := func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var got dashboard.RunList
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &got) != nil || len(got.Runs) != runs || got.Runs[0].Branches != branches {
			b.Fatalf("GET /api/runs: %d, %d runs: %.200s", w.Code, len(got.Runs), w.Body.String())
		}
	}
	check()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
	}
	b.StopTimer()
	check()
}
