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
