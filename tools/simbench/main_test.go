package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"table", []string{"-sites", "4", "-strategies", "beam,teleport"}, 0,
			[]string{"strategy", "beam ", "teleport", "n/a", "4 sites from seed 1"}, nil},
		{"bad sites", []string{"-sites", "0"}, 2, nil, []string{"-sites must be at least 1"}},
		{"bad flag", []string{"-nope"}, 2, nil, []string{"flag provided but not defined"}},
		{"no strategy", []string{"-strategies", " , "}, 2, nil, []string{"names no strategy"}},
		{"bad trap rate", []string{"-trap-rate", "2"}, 2, nil, []string{"-trap-rate"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			if code := run(c.args, &out, &errs); code != c.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.code, errs.String())
			}
			for _, s := range c.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range c.stderr {
				if !strings.Contains(errs.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errs.String())
				}
			}
		})
	}
}

func TestRunJSON(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-sites", "3", "-seed", "5", "-strategies", "beam,greedy", "-json"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var r report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Sites != 3 || r.Seed != 5 || len(r.Outcomes) != 6 || len(r.Summary) != 2 || r.Outcomes[0].Site != 5 || r.Outcomes[1].Strategy != "greedy" {
		t.Fatalf("report %+v", r)
	}
	if !strings.Contains(errs.String(), "strategy") {
		t.Fatalf("no table on stderr: %s", errs.String())
	}
}
