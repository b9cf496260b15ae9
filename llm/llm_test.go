package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// chatServer is a chat-completions endpoint answering with content, or
// with status and body when status is not 200.
func chatServer(t *testing.T, status int, content string, got *atomic.Value) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if got != nil {
			got.Store(map[string]string{"body": string(body), "auth": r.Header.Get("Authorization")})
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"model overloaded","type":"server_error"}}`)
			return
		}
		c, _ := json.Marshal(content)
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","model":"m-1","choices":[{"index":0,"message":{"role":"assistant","content":`+
			string(c)+`},"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func sampleRequest() Request {
	seed := int64(7)
	return Request{Model: "m-1", Messages: []Message{{Role: "system", Content: "rank"}, {Role: "user", Content: "page"}},
		SchemaName: "ranking", Schema: json.RawMessage(`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}`),
		Temperature: 0, Seed: &seed, MaxTokens: 256, PromptVersion: "v1"}
}

func TestComplete(t *testing.T) {
	var got atomic.Value
	srv := chatServer(t, 200, `{"ranking":[2,0]}`, &got)
	c := &Client{BaseURL: srv.URL + "/v1/", APIKey: "sk-test"}
	resp, err := c.Complete(context.Background(), sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != `{"ranking":[2,0]}` || resp.Usage.TotalTokens != 150 || resp.Usage.PromptTokens != 120 || resp.FinishReason != "stop" {
		t.Fatalf("response = %+v", resp)
	}
	sent := got.Load().(map[string]string)
	if sent["auth"] != "Bearer sk-test" {
		t.Errorf("authorization = %q", sent["auth"])
	}
	var w map[string]any
	json.Unmarshal([]byte(sent["body"]), &w)
	rf, _ := w["response_format"].(map[string]any)
	if rf["type"] != "json_schema" || w["seed"] != 7.0 || w["max_tokens"] != 256.0 || w["prompt_version"] != nil {
		t.Errorf("request body = %s", sent["body"])
	}
}

func TestCompleteErrors(t *testing.T) {
	srv := chatServer(t, 503, "", nil)
	_, err := (&Client{BaseURL: srv.URL + "/v1", APIKey: "sk-secret"}).Complete(context.Background(), sampleRequest())
	var ee *EndpointError
	if !errors.As(err, &ee) || ee.Status != 503 || ee.Msg != "model overloaded" {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "sk-secret") {
		t.Fatalf("the error holds the API key: %v", err)
	}
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("a 503 after retries is not ErrNoAnswer: %v", err)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"choices":[]}`) }))
	defer bad.Close()
	if _, err := (&Client{BaseURL: bad.URL}).Complete(context.Background(), sampleRequest()); !errors.Is(err, ErrBadAnswer) {
		t.Fatalf("empty choices: err = %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	base := sampleRequest()
	fp, err := base.Fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	same := sampleRequest()
	same.Schema = json.RawMessage(`{ "properties": {"a":{"type":"integer"}, "b":{"type":"string"}}, "type":"object" }`)
	if f, _ := same.Fingerprint(); f != fp {
		t.Errorf("key order or spacing of the schema changed the fingerprint")
	}
	change := map[string]func(*Request){
		"model":          func(r *Request) { r.Model = "m-2" },
		"message":        func(r *Request) { r.Messages[1].Content = "page 2" },
		"temperature":    func(r *Request) { r.Temperature = 0.7 },
		"seed":           func(r *Request) { r.Seed = nil },
		"max_tokens":     func(r *Request) { r.MaxTokens = 10 },
		"prompt_version": func(r *Request) { r.PromptVersion = "v2" },
		"schema":         func(r *Request) { r.Schema = json.RawMessage(`{"type":"object"}`) },
	}
	for name, f := range change {
		r := sampleRequest()
		f(&r)
		if g, _ := r.Fingerprint(); g == fp {
			t.Errorf("changing the %s kept the fingerprint", name)
		}
	}
	bad := sampleRequest()
	bad.Schema = json.RawMessage(`{"type":`)
	if _, err := bad.Fingerprint(); err == nil {
		t.Errorf("a schema that is not JSON has a fingerprint")
	}
}

func TestCassetteRecordReplay(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.WriteString(w, `{"model":"m-1","choices":[{"message":{"content":"{\"ranking\":[1]}"},"finish_reason":"stop"}],"usage":{"total_tokens":9}}`)
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "cassettes")
	cas, err := OpenCassette(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Caller{Client: &Client{BaseURL: srv.URL}, Cassette: cas, Mode: ModeRecord,
		Scrub: func(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "page", "[scrubbed]")) }}
	first, err := rec.Call(context.Background(), sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, first.Fingerprint+".json"))
	if strings.Contains(string(raw), `"page"`) || !strings.Contains(string(raw), "[scrubbed]") {
		t.Errorf("the entry keeps the request unscrubbed: %s", raw)
	}
	srv.Close()
	play := &Caller{Cassette: cas, Mode: ModeReplay}
	again, err := play.Call(context.Background(), sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if !again.FromCassette || string(again.Body) != string(first.Body) || again.Content != `{"ranking":[1]}` {
		t.Fatalf("replayed %+v, recorded %+v", again.Response, first.Response)
	}
	if calls.Load() != 1 {
		t.Fatalf("the endpoint was asked %d times", calls.Load())
	}
	changed := sampleRequest()
	changed.PromptVersion = "v2"
	_, err = play.Call(context.Background(), changed)
	var miss *MissError
	if !errors.As(err, &miss) || !errors.Is(err, ErrMiss) || !strings.Contains(err.Error(), "the prompt changed since") {
		t.Fatalf("changed prompt: err = %v", err)
	}
	changed = sampleRequest()
	changed.Messages[1].Content = "another page"
	if _, err = play.Call(context.Background(), changed); !errors.As(err, &miss) || strings.Contains(err.Error(), "prompt changed") {
		t.Fatalf("changed message: err = %v", err)
	}
	// A tampered entry is refused, naming its file.
	p := filepath.Join(dir, first.Fingerprint+".json")
	os.WriteFile(p, []byte(strings.Replace(string(raw), first.Fingerprint, strings.Repeat("0", 64), 1)), 0o644)
	if _, err := play.Call(context.Background(), sampleRequest()); !errors.Is(err, ErrCassette) || !strings.Contains(err.Error(), p) {
		t.Fatalf("tampered entry: err = %v", err)
	}
	if _, err := OpenCassette(filepath.Join(t.TempDir(), "none"), false); err == nil {
		t.Fatalf("a missing cassette directory opened for replay")
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"live", "record", "replay"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseMode("playback"); err == nil || !strings.Contains(err.Error(), "live, record or replay") {
		t.Errorf("ParseMode(playback) = %v", err)
	}
}

func TestCassetteEntriesAndPrune(t *testing.T) {
	cas, err := OpenCassette(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"choices":[{"message":{"content":"{}"}}]}`)
	for _, v := range []string{"v1", "v2", "v2"} { // the same v2 request twice: one entry
		r := sampleRequest()
		r.PromptVersion = v
		fp, _ := r.Fingerprint()
		if err := cas.Put(Entry{Fingerprint: fp, PromptVersion: v, Model: r.Model, Request: []byte(`{}`), Response: body}); err != nil {
			t.Fatal(err)
		}
	}
	r := sampleRequest()
	r.Messages[1].Content = "other"
	r.PromptVersion = "v2"
	fp, _ := r.Fingerprint()
	cas.Put(Entry{Fingerprint: fp, PromptVersion: "v2", Model: "m-1", Request: []byte(`{}`), Response: body})
	bad := filepath.Join(cas.Dir(), strings.Repeat("1", 64)+".json")
	os.WriteFile(bad, []byte("{"), 0o644)
	es, err := cas.Entries(context.Background())
	if err != nil || len(es) != 4 {
		t.Fatalf("entries = %+v, %v", es, err)
	}
	removed, err := cas.Prune(context.Background(), "v2")
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 2 || removed[0].PromptVersion != "v1" && removed[1].PromptVersion != "v1" {
		t.Fatalf("removed %+v", removed)
	}
	left, _ := cas.Entries(context.Background())
	for _, e := range left {
		if e.PromptVersion != "v2" || e.Err != "" {
			t.Fatalf("left %+v", left)
		}
	}
	if len(left) != 2 {
		t.Fatalf("left %d entries, want 2", len(left))
	}
}

// TestCompleteNoAnswer: what a model that does not answer looks like to
// the caller, attempt by attempt.
func TestCompleteNoAnswer(t *testing.T) {
	answer := `{"model":"m-1","choices":[{"message":{"content":"{}"}}]}`
	// statuses serves the given statuses in turn, then 200.
	statuses := func(calls *atomic.Int32, ss ...int) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := int(calls.Add(1))
			if n <= len(ss) {
				w.WriteHeader(ss[n-1])
				io.WriteString(w, `{"error":"busy"}`)
				return
			}
			io.WriteString(w, answer)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL
	refused.Close()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices the client leave only once the body is read
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)

	cases := []struct {
		name     string
		url      func(*atomic.Int32) string
		attempts int
		calls    int32
		want     string // "" for an answer
	}{
		{"503 then answer", func(c *atomic.Int32) string { return statuses(c, 503).URL }, 0, 2, ""},
		{"429 twice then answer", func(c *atomic.Int32) string { return statuses(c, 429, 429).URL }, 0, 3, ""},
		{"502 every time", func(c *atomic.Int32) string { return statuses(c, 502, 502, 502, 502).URL }, 0, 3, "3 attempt(s)"},
		{"one attempt", func(c *atomic.Int32) string { return statuses(c, 500).URL }, 1, 1, "endpoint answered 500: busy"},
		{"401 is not asked again", func(c *atomic.Int32) string { return statuses(c, 401).URL }, 0, 1, "endpoint answered 401"},
		{"connection refused", func(*atomic.Int32) string { return refusedURL }, 0, 0, "connection refused"},
		{"no answer in time", func(*atomic.Int32) string { return hang.URL }, 0, 0, "no answer within 200ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			cl := &Client{BaseURL: c.url(&calls), Attempts: c.attempts, Timeout: 200 * time.Millisecond}
			resp, err := cl.Complete(context.Background(), sampleRequest())
			if c.want == "" {
				if err != nil || resp.Content != "{}" {
					t.Fatalf("resp %+v, err %v", resp, err)
				}
			} else {
				var na *NoAnswerError
				if !errors.Is(err, ErrNoAnswer) || !errors.As(err, &na) || !strings.Contains(err.Error(), c.want) ||
					!strings.Contains(err.Error(), "/chat/completions") {
					t.Fatalf("err = %v, want ErrNoAnswer with %q", err, c.want)
				}
			}
			if got := calls.Load(); c.calls > 0 && got != c.calls {
				t.Errorf("asked %d times, want %d", got, c.calls)
			}
		})
	}

	// A caller's context that ends is its own error, not the endpoint's.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := (&Client{BaseURL: hang.URL, Timeout: 10 * time.Second}).Complete(ctx, sampleRequest())
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNoAnswer) {
		t.Fatalf("ended context: err = %v", err)
	}
	// An answer that is not a chat completion is not asked again.
	var calls atomic.Int32
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.WriteString(w, `<html>`)
	}))
	defer bad.Close()
	if _, err := (&Client{BaseURL: bad.URL}).Complete(context.Background(), sampleRequest()); !errors.Is(err, ErrBadAnswer) ||
		errors.Is(err, ErrNoAnswer) || calls.Load() != 1 {
		t.Fatalf("not a completion: err = %v after %d calls", err, calls.Load())
	}
}

// TestReplayUnreadableEntry: in replay, an entry that does not read is
// ErrCassette naming its file, whatever is wrong with it; never a miss.
func TestReplayUnreadableEntry(t *testing.T) {
	req := sampleRequest()
	fp, _ := req.Fingerprint()
	cases := []struct {
		name  string
		spoil func(path string) error
		want  string
	}{
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("{\"format\":"), 0o644) }, "unexpected end of JSON"},
		{"another format", func(p string) error {
			return os.WriteFile(p, []byte(`{"format":"v0","fingerprint":"`+fp+`","response":"e30="}`), 0o644)
		}, `format "v0"`},
		{"no response", func(p string) error {
			return os.WriteFile(p, []byte(`{"format":"`+CassetteFormat+`","fingerprint":"`+fp+`"}`), 0o644)
		}, "no response"},
		{"response not a completion", func(p string) error {
			return os.WriteFile(p, []byte(`{"format":"`+CassetteFormat+`","fingerprint":"`+fp+`","response":"e30="}`), 0o644)
		}, "no choice holds a message"},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o755) }, "not a regular file (a directory)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cas, err := OpenCassette(t.TempDir(), false)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(cas.Dir(), fp+".json")
			if err := c.spoil(p); err != nil {
				t.Fatal(err)
			}
			rep, err := (&Caller{Cassette: cas, Mode: ModeReplay}).Call(context.Background(), req)
			if !errors.Is(err, ErrCassette) || errors.Is(err, ErrMiss) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrCassette naming %s and %q", err, p, c.want)
			}
			if rep == nil || rep.Fingerprint != fp {
				t.Fatalf("the reply does not carry the fingerprint: %+v", rep)
			}
		})
	}
}
