package proctree

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		comm string
		ppid int
		cpu  time.Duration
	}{
		{"4242 (node) S 4000 4242 4000 0 -1 4194560 9 0 0 0 150 25 3 2 20 0 11 0 1 2 3", true, "node", 4000, 1800 * time.Millisecond},
		{"17 (chrome (renderer)) R 16 17 16 0 -1 0 0 0 0 0 7 1 0 0 20", true, "chrome (renderer)", 16, 80 * time.Millisecond},
		{"17 chrome R 16", false, "", 0, 0},
		{"17 (x) R 16 1 2", false, "", 0, 0},
	} {
		p, ok := parseStat(c.in)
		if ok != c.ok || ok && (p.comm != c.comm || p.ppid != c.ppid || p.cpu != c.cpu) {
			t.Errorf("parseStat(%q) = %+v %v, want %s %d %v %v", c.in, p, ok, c.comm, c.ppid, c.cpu, c.ok)
		}
	}
}

func TestChromiumType(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/lib/chromium/chromium-headless-shell\x00--headless\x00--remote-debugging-pipe":                       "browser",
		"/usr/lib/chromium/chromium-headless-shell --type=renderer --headless=old --no-sandbox":                    "renderer",
		"/usr/lib/chromium/chromium-headless-shell\x00--type=gpu-process\x00--no-sandbox":                          "gpu-process",
		"/usr/lib/chromium/chromium-headless-shell --type=utility --utility-sub-type=network.mojom.NetworkService": "utility",
		"/usr/lib/chromium/chromium-headless-shell --type=zygote --no-sandbox":                                     "renderer",
		"": "browser",
	} {
		if got := chromiumType(in); got != want {
			t.Errorf("chromiumType(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDescendants: a child that burns CPU is counted under Other while
// it lives.
func TestDescendants(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done; sleep 5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var got CPU
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got = Descendants(os.Getpid()); got.Other > 0 {
			break
		}
	}
	if got.Other <= 0 || got.Driver != 0 || got.Browser != 0 {
		t.Fatalf("descendants %+v, want the shell's CPU under Other", got)
	}
}
