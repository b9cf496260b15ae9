package gym

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEpisodesAreSeeded: the same family and seed give the same page and
// goal; other seeds vary labels, order and position.
func TestEpisodesAreSeeded(t *testing.T) {
	for _, f := range Families() {
		a, err := New(f, 7)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := New(f, 7)
		if a.Goal != b.Goal || a.HTML() != b.HTML() {
			t.Errorf("%s: seed 7 gave two episodes", f)
		}
		pages, goals := map[string]bool{}, map[string]bool{}
		for seed := int64(1); seed <= 10; seed++ {
			e, _ := New(f, seed)
			pages[e.HTML()], goals[e.Goal] = true, true
			if e.Goal == "" || !strings.Contains(e.HTML(), "verdict(") {
				t.Errorf("%s/%d: goal %q, page without a verdict", f, seed, e.Goal)
			}
		}
		if len(pages) < 9 || len(goals) < 5 {
			t.Errorf("%s: 10 seeds gave %d pages and %d goals", f, len(pages), len(goals))
		}
	}
}

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	e, _ := New("radio", 3)
	for path, want := range map[string]int{e.Path: 200, "/gym/radio/x": 400, "/gym/nope/1": 404, "/other": 404} {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d", path, resp.StatusCode, want)
		}
		if want == 200 && string(body) != e.HTML() {
			t.Errorf("%s: served another page", path)
		}
	}
	if _, err := New("nope", 1); !errors.Is(err, ErrUnknownFamily) {
		t.Errorf("err = %v", err)
	}
}
