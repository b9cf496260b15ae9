package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHARShowsWhatWasSubmitted: the commit bundle's HAR, exported with
// `bundle --commit --har`, carries the capture's timings (entries start at
// different times, with durations) and the submitted order form as the
// POST's postData text, scrubbed: the idempotency key is there, the
// billing e-mail only as a token.
func TestHARShowsWhatWasSubmitted(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	dir, sum := sharedCommit(t)
	har := filepath.Join(t.TempDir(), "commit.har")
	if code, out := cli(t, nil, "bundle", sum.RunID, "--commit", "--har", har, "--data-dir", dir, "-o", filepath.Join(t.TempDir(), "c.bundle")); code != 0 {
		t.Fatalf("bundle --har: exit %d\n%s", code, out)
	}
	data, err := os.ReadFile(har)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Started string  `json:"startedDateTime"`
				Time    float64 `json:"time"`
				Request struct {
					Method   string `json:"method"`
					URL      string `json:"url"`
					PostData *struct {
						Text string `json:"text"`
					} `json:"postData"`
				} `json:"request"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	starts := map[string]bool{}
	timed, submitted := 0, ""
	for _, e := range doc.Log.Entries {
		starts[e.Started] = true
		if e.Time > 0 {
			timed++
		}
		if e.Request.Method == "POST" && strings.Contains(e.Request.URL, "/orders") && e.Request.PostData != nil {
			submitted = e.Request.PostData.Text
		}
	}
	if len(starts) < 2 || timed == 0 {
		t.Fatalf("%d entries, %d distinct start times, %d with a duration: the capture's timings are missing", len(doc.Log.Entries), len(starts), timed)
	}
	if !strings.Contains(submitted, url.QueryEscape(sum.Commit.Key)) {
		t.Fatalf("the POST /orders postData %q does not show the submitted idempotency key %s", submitted, sum.Commit.Key)
	}
	if strings.Contains(submitted, "procurement@example.com") || strings.Contains(submitted, "procurement%40example.com") {
		t.Fatalf("the submitted e-mail is in clear in the HAR: %q", submitted)
	}
}
