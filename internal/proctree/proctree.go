// Package proctree reads the CPU time of a process's descendants from
// /proc, grouped by what they are: the Playwright driver (node) and the
// browser (Chromium's processes). A run reads it before it closes the
// browser, so that the driver's and Chromium's shares of its CPU can be
// told apart (once reaped they merge into the run's RUSAGE_CHILDREN), and
// Chromium's split by process type (its main process, renderers, the GPU
// process, utilities).
//
// Each live descendant counts its own time and that of its children it
// already reaped (cutime, cstime): every process of the tree is counted
// once. Where /proc does not exist the reading is empty.
package proctree

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the kernel's USER_HZ, the unit of /proc's times (100 on
// every Linux that matters).
const clockTick = 10 * time.Millisecond

// CPU is the CPU time of a process tree's parts.
type CPU struct {
	Driver  time.Duration // node: the Playwright driver
	Browser time.Duration // Chromium's processes
	Other   time.Duration
	// BrowserByType splits Browser by Chromium's process type: "browser"
	// (the main process), "renderer", "gpu-process", "utility" (the
	// network service and the like). A renderer that exited was reaped by
	// Chromium's zygote: its time, and the zygote's own (a few ms), count
	// as "renderer".
	BrowserByType map[string]time.Duration
}

// proc is one process as /proc/PID/stat says.
type proc struct {
	ppid int
	comm string
	cpu  time.Duration
}

// Descendants returns the CPU of pid's live descendants (not pid's own),
// by part.
func Descendants(pid int) CPU {
	procs := readAll()
	children := map[int][]int{}
	for p, pr := range procs {
		children[pr.ppid] = append(children[pr.ppid], p)
	}
	var out CPU
	seen := map[int]bool{pid: true} // a pid reused while /proc was read cannot loop
	var walk func(p int, browser bool)
	walk = func(p int, browser bool) {
		for _, c := range children[p] {
			if seen[c] {
				continue
			}
			seen[c] = true
			pr := procs[c]
			b := browser || isBrowser(pr.comm)
			switch {
			case b:
				out.Browser += pr.cpu
				if out.BrowserByType == nil {
					out.BrowserByType = map[string]time.Duration{}
				}
				out.BrowserByType[chromiumType(readCmdline(c))] += pr.cpu
			case pr.comm == "node":
				out.Driver += pr.cpu
			default:
				out.Other += pr.cpu
			}
			walk(c, b)
		}
	}
	walk(pid, false)
	return out
}

// chromiumType is the process type a Chromium command line names
// (--type=...), "browser" for none; a zygote counts as "renderer" (it
// reaps the renderers that exit). Chromium rewrites its children's
// command lines into one space-separated string, so both forms are read.
func chromiumType(cmdline string) string {
	for _, arg := range strings.FieldsFunc(cmdline, func(r rune) bool { return r == 0 || r == ' ' }) {
		if t, ok := strings.CutPrefix(arg, "--type="); ok {
			if t == "zygote" {
				return "renderer"
			}
			return t
		}
	}
	return "browser"
}

func readCmdline(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return string(b)
}

func isBrowser(comm string) bool {
	c := strings.ToLower(comm)
	return strings.Contains(c, "chrom") || strings.HasPrefix(c, "headless_shell")
}

func readAll() map[int]proc {
	out := map[int]proc{}
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return out
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if pr, ok := readStat(filepath.Join(d, "stat")); ok {
			out[pid] = pr
		}
	}
	return out
}

// readStat parses /proc/PID/stat: "pid (comm) state ppid ... utime stime
// cutime cstime ...", comm possibly holding spaces and parentheses.
func readStat(path string) (proc, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return proc{}, false
	}
	return parseStat(string(b))
}

func parseStat(s string) (proc, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return proc{}, false
	}
	f := strings.Fields(s[end+1:])
	// after comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
	if len(f) < 15 {
		return proc{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return proc{}, false
	}
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return proc{}, false
		}
		ticks += n
	}
	return proc{ppid: ppid, comm: s[open+1 : end], cpu: time.Duration(ticks) * clockTick}, true
}
