package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// A JUnit XML report of one run, for CI systems that show test results:
// one test suite holding one test case, the task. A run that did not
// commit (or reach its goal) is a failure naming its outcome and exit
// code, the bundles it handed over and the command that replays them.

// junitSuite is the report's root element.
type junitSuite struct {
	XMLName  xml.Name `xml:"testsuite"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Time     string   `xml:"time,attr"`
	// Timestamp is when the (first) run started (its id's time), ISO
	// 8601 UTC; Hostname the machine it ran on.
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Hostname   string          `xml:"hostname,attr,omitempty"`
	Properties *junitPropertys `xml:"properties,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

// junitPropertys are the run's facts a CI system can filter and chart
// by: its id, task and digest, seed, outcome, exit code and branches.
type junitPropertys struct {
	List []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitCase is the task's test case.
type junitCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	Time      string `xml:"time,attr"`
	// Properties are the run's, on the case when a suite holds several.
	Properties *junitPropertys `xml:"properties,omitempty"`
	Failure    *junitFailure   `xml:"failure,omitempty"`
	SystemOut  *junitText      `xml:"system-out,omitempty"`

	elapsed   time.Duration
	timestamp string
}

// junitText is an element's text, kept as CDATA so its lines read as
// they are.
type junitText struct {
	Text string `xml:",cdata"`
}

// junitFailure says why the run failed: Message the outcome and the
// first replay command, Type the run's status, Text the details.
type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// junitReport is the report of the run of task name: its summary (nil
// when the run stopped before it had an id) and its error.
func junitReport(name string, s *orchestrator.Summary, runErr error) junitSuite {
	return junitSuiteOf([]junitCase{junitTaskCase(name, s, runErr)}, "")
}

// junitTaskCase is the test case of one task's run.
func junitTaskCase(name string, s *orchestrator.Summary, runErr error) junitCase {
	var elapsed time.Duration
	c := junitCase{Name: name, Classname: "multiverse", SystemOut: junitOut(s), Properties: junitProps(s, runErr)}
	if s != nil {
		elapsed = s.Elapsed
		if id, err := ulid.ParseStrict(s.RunID); err == nil {
			c.timestamp = ulid.Time(id.Time()).UTC().Format("2006-01-02T15:04:05")
		}
	}
	c.elapsed, c.Time = elapsed, fmt.Sprintf("%.3f", elapsed.Seconds())
	if runErr != nil {
		c.Failure = junitFail(s, runErr)
	}
	return c
}

// junitSuiteOf is the suite of the cases of one invocation: the run's
// properties on the suite when it holds one case, on each case when it
// holds several.
func junitSuiteOf(cases []junitCase, host string) junitSuite {
	suite := junitSuite{Name: "multiverse", Tests: len(cases), Hostname: host, Cases: cases}
	var total time.Duration
	for i := range suite.Cases {
		c := &suite.Cases[i]
		total += c.elapsed
		if c.Failure != nil {
			suite.Failures++
		}
		if suite.Timestamp == "" {
			suite.Timestamp = c.timestamp
		}
	}
	if len(cases) == 1 {
		suite.Properties, suite.Cases[0].Properties = suite.Cases[0].Properties, nil
	}
	suite.Time = fmt.Sprintf("%.3f", total.Seconds())
	return suite
}

// junitProps are the suite's properties; the exit code alone without a
// summary.
func junitProps(s *orchestrator.Summary, runErr error) *junitPropertys {
	p := &junitPropertys{}
	add := func(name, value string) {
		if value != "" {
			p.List = append(p.List, junitProperty{Name: "multiverse." + name, Value: value})
		}
	}
	if s != nil {
		add("run_id", s.RunID)
		add("task", s.Task)
		add("task_digest", s.TaskDigest)
		add("seed", strconv.FormatUint(s.Seed, 10))
		add("status", s.Status)
		add("branches_executed", strconv.Itoa(s.Branches.Executed))
		if s.Winner != nil {
			add("winner_plan_digest", s.Winner.PlanDigest)
		}
	}
	add("exit_code", strconv.Itoa(orchestrator.ExitCode(runErr)))
	return p
}

// junitFail describes a failed run.
func junitFail(s *orchestrator.Summary, runErr error) *junitFailure {
	code := orchestrator.ExitCode(runErr)
	status := "not_started" // the run stopped before it had an id
	if s != nil && s.Status != "" {
		status = s.Status
	}
	msg := strings.TrimPrefix(oneLine(runErr.Error()), "orchestrator: ")
	f := &junitFailure{Type: status, Message: fmt.Sprintf("%s (exit %d): %s", status, code, msg)}
	var b strings.Builder
	fmt.Fprintf(&b, "outcome: %s (exit %d)\nerror: %s\n", status, code, msg)
	if s != nil && s.Paths.FailureBundleDir != "" {
		fmt.Fprintf(&b, "bundles: %s\n", s.Paths.FailureBundleDir)
		for _, fb := range s.Paths.FailureBundles {
			if fb.Path == "" {
				fmt.Fprintf(&b, "  %s branch %s: not written: %s\n", fb.Reason, fb.BranchID, oneLine(fb.Error))
				continue
			}
			if !strings.Contains(f.Message, "replay:") {
				f.Message += "; replay: " + fb.Replay
			}
			fmt.Fprintf(&b, "  %s branch %s (J %.3f%s): %s\n    %s\n", fb.Reason, fb.BranchID, fb.J, ruleSuffix(fb.Rule), fb.Path, fb.Replay)
		}
	}
	f.Text = b.String()
	return f
}

func ruleSuffix(rule string) string {
	if rule == "" {
		return ""
	}
	return ", " + rule
}

// junitOut is the test case's standard output: the run's id and where its
// records are; nil without a summary.
func junitOut(s *orchestrator.Summary) *junitText {
	if s == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "run_id: %s\ntask: %s\nstatus: %s\n", s.RunID, s.Task, s.Status)
	fmt.Fprintf(&b, "branches: %d executed, %d at the %s\n", s.Branches.Executed, s.Branches.Boundary, reachedWhat(s))
	fmt.Fprintf(&b, "data_dir: %s\n", s.Paths.DataDir)
	if s.Paths.Bundle != "" {
		fmt.Fprintf(&b, "bundle: %s\n", s.Paths.Bundle)
	}
	return &junitText{Text: b.String()}
}

// writeJUnit writes the report as an XML document to w.
func writeJUnit(w io.Writer, suite junitSuite) error {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(suite); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

// writeJUnitFile writes the report to path, creating its directory.
func writeJUnitFile(path string, suite junitSuite) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	var buf bytes.Buffer
	if err := writeJUnit(&buf, suite); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	return nil
}
