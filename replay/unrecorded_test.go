package replay

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// TestProxyReportsUnrecorded: the strict replay proxy answers what the
// recording holds and refuses, and lists, a request it holds no response
// for, saying whether the recording has it as failed at capture.
func TestProxyReportsUnrecorded(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	origin := srv.URL
	srv.Close()
	b := &bundle.Bundle{Manifest: bundle.Manifest{Origin: origin},
		Network: []bundle.Entry{{Seq: 1, Step: 1, Method: "GET", URL: "{origin}/", Status: 200},
			{Seq: 2, Step: 1, Method: "GET", URL: "{origin}/gone", Error: "net::ERR_CONNECTION_REFUSED"}}}
	s := newServer(b, scrub.New(scrub.NewKey(), nil))
	addr, closeFn, err := s.listen()
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	proxy, err := url.Parse(addr)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}}
	s.setStep(1)
	if resp, err := client.Get(origin + "/"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("recorded request: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if resp, err := client.Get(origin + "/beacon?x=1"); err == nil {
		resp.Body.Close()
		t.Fatalf("the proxy answered an unrecorded request with %d", resp.StatusCode)
	}
	if resp, err := client.Get(origin + "/gone"); err == nil {
		resp.Body.Close()
		t.Fatalf("the proxy answered a request that failed at capture with %d", resp.StatusCode)
	}
	served, un := s.report()
	if served != 1 || len(un) != 2 || un[0].Step != 1 || un[0].Method != "GET" || un[0].AtCapture || !un[1].AtCapture {
		t.Fatalf("served %d, unrecorded %+v; want 1 served, GET /beacon new and GET /gone failed at capture", served, un)
	}
}

// TestVerdict: a replay fails on a divergence, and on an unrecorded
// request only with FailOnUnrecorded.
func TestVerdict(t *testing.T) {
	ok := []StepReport{{Index: 1, Match: true}}
	beacon := []Unrecorded{{Step: 1, Method: "GET", URL: "{origin}/beacon"}}
	failedThen := []Unrecorded{{Step: 1, Method: "GET", URL: "http://cdn.test/pixel.png", AtCapture: true}}
	cases := []struct {
		name       string
		rep        Report
		strict     bool
		diverged   bool
		unrecorded bool
	}{
		{"clean", Report{Steps: ok, RSR: 1}, false, false, false},
		{"clean, strict", Report{Steps: ok, RSR: 1}, true, false, false},
		{"unrecorded, lenient", Report{Steps: ok, RSR: 1, Unrecorded: beacon}, false, false, false},
		{"unrecorded, strict", Report{Steps: ok, RSR: 1, Unrecorded: beacon}, true, false, true},
		{"failed at capture too, strict", Report{Steps: ok, RSR: 1, Unrecorded: failedThen}, true, false, false},
		{"diverged", Report{Steps: ok, RSR: 0.5, TTD: 2}, false, true, false},
		{"diverged and unrecorded, strict", Report{Steps: ok, RSR: 0.5, TTD: 2, Unrecorded: beacon}, true, true, true},
		{"no steps", Report{}, true, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := verdict(&c.rep, Options{FailOnUnrecorded: c.strict})
			if got := errors.Is(err, ErrDiverged); got != c.diverged {
				t.Errorf("ErrDiverged: %v (err %v), want %v", got, err, c.diverged)
			}
			if got := errors.Is(err, ErrUnrecorded); got != c.unrecorded {
				t.Errorf("ErrUnrecorded: %v (err %v), want %v", got, err, c.unrecorded)
			}
		})
	}
}

// TestFailOnUnrecordedIsStrictOnly: a live replay has no recording to
// miss, so the option is refused before any browser work.
func TestFailOnUnrecordedIsStrictOnly(t *testing.T) {
	_, err := Replay(t.Context(), nil, &bundle.Bundle{}, Options{Live: true, FailOnUnrecorded: true})
	if !errors.Is(err, ErrOption) {
		t.Fatalf("Replay(live, FailOnUnrecorded) = %v, want ErrOption", err)
	}
}
