package browser_test

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// machineCPU returns the CPU time the whole machine has spent busy: the
// browser's processes are not this process's children, so the per
// operation CPU of a benchmark is read machine-wide (run it on a quiet
// machine).
func machineCPU(b *testing.B) time.Duration {
	f, err := os.Open("/proc/stat")
	if err != nil {
		b.Skip("no /proc/stat")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	fields := strings.Fields(sc.Text())
	var ticks int64
	for i, v := range fields[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100
}

// BenchmarkSession measures one branch's browser work on the demo site
// without latency: wall clock and machine CPU per operation.
func BenchmarkSession(b *testing.B) {
	srv := vendor(b, sites.Knobs{})
	probe := scoring.Probe{Kind: scoring.ProbeElement, Selector: "[data-testid=billing-shown]"}
	run := func(b *testing.B, setup func(*browser.Session), op func(*browser.Session)) {
		s := session(b, srv.URL, 1)
		if setup != nil {
			setup(s)
		}
		c0 := machineCPU(b)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			op(s)
		}
		b.StopTimer()
		b.ReportMetric(float64((machineCPU(b)-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
	nav := func(s *browser.Session) {
		do(b, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/pricing"})
	}
	b.Run("context", func(b *testing.B) {
		c0 := machineCPU(b)
		for i := 0; i < b.N; i++ {
			s, err := runtime(b).NewSession(context.Background(), browser.SessionOptions{Origin: srv.URL, RunSeed: 1})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
		b.ReportMetric(float64((machineCPU(b)-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	b.Run("navigate", func(b *testing.B) { run(b, nil, nav) })
	b.Run("observe", func(b *testing.B) {
		run(b, nav, func(s *browser.Session) {
			if _, err := s.Observe(context.Background(), browser.ObserveSpec{Probes: []scoring.Probe{probe}, Store: true}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("observe+screenshot", func(b *testing.B) {
		run(b, nav, func(s *browser.Session) {
			if _, err := s.Observe(context.Background(), browser.ObserveSpec{Probes: []scoring.Probe{probe}, Store: true, Screenshot: true}); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkBuild compares Chromium's headless shell with the full browser
// in the same run: one branch's worth of browser work per operation (a new
// context, a navigation, an observation), wall clock and machine CPU. It
// is the measured reason runs prefer the headless shell.
func BenchmarkBuild(b *testing.B) {
	srv := vendor(b, sites.Knobs{})
	builds := []struct{ name, path string }{
		{"headless-shell", browser.HeadlessShellCandidates[0]},
		{"full", "/usr/bin/chromium"},
	}
	for _, bd := range builds {
		b.Run(bd.name, func(b *testing.B) {
			if _, err := os.Stat(bd.path); err != nil {
				b.Skipf("no %s at %s", bd.name, bd.path)
			}
			ctx := context.Background()
			rt, err := browser.Launch(ctx, browser.Options{ChromiumPath: bd.path})
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close()
			c0 := machineCPU(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s, err := rt.NewSession(ctx, browser.SessionOptions{Origin: srv.URL, RunSeed: 1})
				if err != nil {
					b.Fatal(err)
				}
				do(b, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/pricing"})
				if _, err := s.Observe(ctx, browser.ObserveSpec{}); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
			b.StopTimer()
			b.ReportMetric(float64((machineCPU(b)-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
