package bundle

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

func require(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

func requireNoErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

const testRunID = "01HZX3K5V7Q8R9S0T1U2V3W4X5"
const testBranchID = "01HZX3K6000000000000000001"
const testOrigin = "http://127.0.0.1:8555"

// chain assigns seq, prev_hash and hash to events of one run, as
// eventlog.Log.Append would.
func chain(t testing.TB, es []eventlog.Event) []eventlog.Event {
	t.Helper()
	prev := eventlog.Genesis(testRunID)
	out := make([]eventlog.Event, len(es))
	for i, e := range es {
		e.RunID = testRunID
		e.Seq = int64(i + 1)
		e.PrevHash = prev
		p, err := eventlog.CanonicalPayload(e.Payload)
		requireNoErr(t, err)
		e.Payload = p
		h, _, err := eventlog.EventHash(&e)
		requireNoErr(t, err)
		e.Hash = h
		prev = h
		out[i] = e
	}
	return out
}

// runEvents is a whole run's chain: events of the test branch and of a
// sibling that a branch bundle leaves out.
func runEvents(t testing.TB) []eventlog.Event {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ev := func(ms int, kind, branchID, payload string) eventlog.Event {
		return eventlog.Event{Time: t0.Add(time.Duration(ms) * time.Millisecond), Kind: kind, BranchID: branchID,
			VirtualTime: int64(ms), Payload: json.RawMessage(payload)}
	}
	other := "01HZX3K6000000000000000002"
	return chain(t, []eventlog.Event{
		ev(0, eventlog.KindRunStart, "", `{"seed":"42","task_digest":"aa"}`),
		ev(1, eventlog.KindBranchFork, testBranchID, `{"depth":1,"parent_id":""}`),
		ev(2, eventlog.KindBranchFork, other, `{"depth":1,"parent_id":""}`),
		ev(3, eventlog.KindActionStart, testBranchID, `{"action":"navigate"}`),
		ev(4, eventlog.KindActionEnd, testBranchID, `{"status":"ok","text":"<b>Team</b> & co"}`),
		ev(5, eventlog.KindActionStart, other, `{"action":"click"}`),
		ev(6, eventlog.KindActionStart, testBranchID, `{"action":"click"}`),
		ev(7, eventlog.KindActionEnd, testBranchID, `{"status":"healed"}`),
		ev(8, eventlog.KindActionStart, testBranchID, `{"action":"type"}`),
		ev(9, eventlog.KindActionEnd, testBranchID, `{"status":"ok"}`),
	})
}

// branchEvents keeps the run's events that concern the test branch.
func branchEvents(es []eventlog.Event) []eventlog.Event {
	var out []eventlog.Event
	for _, e := range es {
		if e.BranchID == "" || e.BranchID == testBranchID {
			out = append(out, e)
		}
	}
	return out
}

// smallBundle is the fixture most tests use: three steps, five requests
// (one redirect without a body, one POST, one blocked, one repeated GET),
// DOM and AX texts, a screenshot, and a non-dense subset of a run's events.
func smallBundle(t testing.TB) *Bundle {
	t.Helper()
	html := []byte("<!doctype html><title>Pricing</title><h1>Team</h1>")
	css := []byte("body{font-family:sans-serif}")
	js := []byte(`{"plan":"team","seats":10,"total":"290.00"}`)
	dom := [][]byte{[]byte("html\n body\n  h1 \"Home\"\n"), []byte("html\n body\n  h1 \"Pricing\"\n"), []byte("html\n body\n  input[name=seats] value=tok_0123456789abcdef\n")}
	ax := [][]byte{[]byte("document \"Home\"\n"), []byte("document \"Pricing\"\n heading \"Team\"\n"), []byte("document \"Checkout\"\n spinbutton \"Seats\"\n")}
	png := []byte("\x89PNG\r\n\x1a\nnot really a png")

	plan := []branch.Action{
		{Kind: branch.KindNavigate, URL: testOrigin + "/"},
		{Kind: branch.KindClick, Target: &branch.Target{TestID: "nav-pricing", Role: "link", Name: "Pricing", Box: &branch.Box{X: 10, Y: 20, W: 80, H: 24}}, Label: `click link "Pricing"`},
		{Kind: branch.KindType, Target: &branch.Target{Field: "seats"}, Input: "seats"},
	}
	steps := make([]Step, len(plan))
	for i := range plan {
		steps[i] = Step{
			Index: i + 1, Action: plan[i], Status: StatusOK, VirtualTimeMS: 1767323045000 + int64(i+1)*1000,
			URL: testOrigin + []string{"/", "/pricing", "/checkout?plan=team"}[i], Title: []string{"Home", "Pricing", "Checkout"}[i],
			DOMHash: sumHex(dom[i]), AXHash: sumHex(ax[i]), NetDigest: fmt.Sprintf("%064x", i+1),
			Predicates: map[string]bool{"on_checkout": i == 2, "team_selected": i >= 1},
		}
	}
	steps[1].Status, steps[1].Code, steps[1].Strategy = StatusHealed, "selector_not_found", "role"
	steps[0].ScreenshotHash = sumHex(png)

	files := map[string][]byte{
		BodyPath(sumHex(html)): html,
		BodyPath(sumHex(css)):  css,
		BodyPath(sumHex(js)):   js,
		ScreenshotPath(1):      png,
	}
	for i := range dom {
		files[DOMPath(i+1)] = dom[i]
		files[AXPath(i+1)] = ax[i]
	}
	reqBody := fmt.Sprintf("%064x", 0xb0d1)
	network := []Entry{
		{Seq: 1, Step: 1, Method: "GET", URL: testOrigin + "/", RequestHeaders: map[string]string{"accept": "text/html", "cookie": "tok_aaaaaaaaaaaaaaaa"},
			Status: 200, StatusText: "OK", ResponseHeaders: map[string]string{"content-type": "text/html; charset=utf-8"},
			BodySHA256: sumHex(html), BodySize: len(html), ResourceType: "document", StartedMS: 10, DurationMS: 25},
		{Seq: 2, Step: 1, Method: "GET", URL: testOrigin + "/app.css", Status: 200, StatusText: "OK",
			ResponseHeaders: map[string]string{"Content-Type": "text/css"}, BodySHA256: sumHex(css), BodySize: len(css), ResourceType: "stylesheet", StartedMS: 40, DurationMS: 3},
		{Seq: 4, Step: 2, Method: "GET", URL: testOrigin + "/pricing?b=2&a=1#top", Status: 302, StatusText: "Found",
			ResponseHeaders: map[string]string{"location": "/pricing/team"}, ResourceType: "document", StartedMS: 1010, DurationMS: 4},
		{Seq: 5, Step: 3, Method: "POST", URL: testOrigin + "/api/quote", RequestHeaders: map[string]string{"content-type": "application/json"},
			RequestBodySHA256: reqBody, Status: 200, StatusText: "OK", ResponseHeaders: map[string]string{"content-type": "application/json"},
			BodySHA256: sumHex(js), BodySize: len(js), ResourceType: "fetch", StartedMS: 2020, DurationMS: 12},
		{Seq: 6, Step: 3, Method: "POST", URL: testOrigin + "/api/quote", RequestHeaders: map[string]string{"content-type": "application/json"},
			RequestBodySHA256: reqBody, Status: 200, StatusText: "OK", ResponseHeaders: map[string]string{"content-type": "application/json"},
			BodySHA256: sumHex(js), BodySize: len(js), ResourceType: "fetch", StartedMS: 2050, DurationMS: 11},
		{Seq: 7, Step: 3, Method: "POST", URL: testOrigin + "/api/order", Blocked: true, Error: "blocked by commit guard", ResourceType: "fetch", StartedMS: 2100},
		{Seq: 8, Step: 3, Method: "GET", URL: "wss://127.0.0.1:8555/live", Unsupported: "websocket", ResourceType: "websocket"},
	}
	return &Bundle{
		Manifest: Manifest{
			Schema: Schema, Kind: KindBranch, RunID: testRunID, BranchID: testBranchID,
			PlanDigest: branch.Plan(plan).Digest("taskdigest", testOrigin), TaskDigest: "taskdigest", TaskName: "buy-team-plan",
			Seed: "42", BranchSeed: "18446744073709551615", Origin: testOrigin, StartURL: testOrigin + "/",
			Environment: Environment{Width: 1280, Height: 800, DeviceScaleFactor: 1.5, Locale: "en-US", Timezone: "UTC",
				UserAgent: "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome", ClockMS: 1767323045000, StepAdvanceMS: 1000, ActionTimeoutMS: 5000},
			Fingerprint: Fingerprint{Browser: "chromium 131.0.6778.33", DriverVersion: "1.52.0", OS: "linux", Arch: "amd64"},
			Plan:        plan,
			Inputs:      map[string]InputRef{"seats": {Token: "tok_0123456789abcdef"}, "card": {Secret: true}},
			Guard:       []Guard{{Method: "POST", URL: "{origin}/api/order"}},
			Steps:       len(plan),
			Created:     time.Date(2026, 1, 2, 3, 5, 0, 123000000, time.UTC),
			Notes:       []string{"websocket traffic not captured: wss://127.0.0.1:8555/live"},
		},
		Events:  branchEvents(runEvents(t)),
		Steps:   steps,
		Network: network,
		Files:   files,
	}
}

// writeBytes writes b and returns the file.
func writeBytes(t testing.TB, b *Bundle) []byte {
	t.Helper()
	var buf bytes.Buffer
	requireNoErr(t, Write(&buf, b))
	return buf.Bytes()
}

// tarFile is one raw entry of a bundle archive, for tampering.
type tarFile struct {
	name string
	data []byte
}

// unpack decompresses and untars a bundle file without any check.
func unpack(t testing.TB, file []byte) []tarFile {
	t.Helper()
	dec, err := zstd.NewReader(bytes.NewReader(file))
	requireNoErr(t, err)
	defer dec.Close()
	tr := tar.NewReader(dec)
	var out []tarFile
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		requireNoErr(t, err)
		data, err := io.ReadAll(tr)
		requireNoErr(t, err)
		out = append(out, tarFile{hdr.Name, data})
	}
}

// pack tars and compresses files in the given order.
func pack(t testing.TB, files []tarFile) []byte {
	t.Helper()
	return compress(t, tarFiles(t, files))
}

// tarFiles tars files in the given order.
func tarFiles(t testing.TB, files []tarFile) []byte {
	t.Helper()
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, f := range files {
		requireNoErr(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Size: int64(len(f.data)), Mode: 0o644, Format: tar.FormatPAX}))
		_, err := tw.Write(f.data)
		requireNoErr(t, err)
	}
	requireNoErr(t, tw.Close())
	return raw.Bytes()
}

func compress(t testing.TB, raw []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw, err := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1))
	requireNoErr(t, err)
	_, err = zw.Write(raw)
	requireNoErr(t, err)
	requireNoErr(t, zw.Close())
	return out.Bytes()
}

func get(files []tarFile, name string) []byte {
	for _, f := range files {
		if f.name == name {
			return f.data
		}
	}
	return nil
}

func set(files []tarFile, name string, data []byte) []tarFile {
	out := make([]tarFile, 0, len(files)+1)
	found := false
	for _, f := range files {
		if f.name == name {
			f.data, found = data, true
		}
		out = append(out, f)
	}
	if !found {
		out = append(out, tarFile{name, data})
	}
	return out
}

func remove(files []tarFile, name string) []tarFile {
	var out []tarFile
	for _, f := range files {
		if f.name != name {
			out = append(out, f)
		}
	}
	return out
}

// fixChecksums rewrites checksums.json to match the files, as a careless
// (or deliberate) editor would.
func fixChecksums(t testing.TB, files []tarFile) []tarFile {
	t.Helper()
	sums := checksums{Algorithm: "sha256", Files: map[string]string{}}
	for _, f := range files {
		if f.name != ChecksumsFile {
			sums.Files[f.name] = sumHex(f.data)
		}
	}
	sums.MerkleRoot = MerkleRoot(sums.Files)
	data, err := json.Marshal(sums)
	requireNoErr(t, err)
	return set(files, ChecksumsFile, data)
}

// editJSON decodes a JSON file into a generic value, applies edit and
// re-encodes it.
func editJSON(t testing.TB, data []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	requireNoErr(t, json.Unmarshal(data, &m))
	edit(m)
	out, err := json.Marshal(m)
	requireNoErr(t, err)
	return out
}

// hasProblem reports whether r lists a problem at path (and line and seq
// when non-zero) whose message contains msg.
func hasProblem(r *Report, path string, line int, seq int64, msg string) bool {
	for _, p := range r.Problems {
		if p.Path == path && (line == 0 || p.Line == line) && (seq == 0 || p.Seq == seq) && strings.Contains(p.Msg, msg) {
			return true
		}
	}
	return false
}

func problemList(r *Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "\n  %s (seq %d)", p, p.Seq)
	}
	return b.String()
}
