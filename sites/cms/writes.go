package cms

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
)

// Write is one state-changing request the site received: any method but
// GET, HEAD and OPTIONS, outside /__test/. It is recorded when the request
// arrives, before the latency wait, so a request whose client gave up is
// still counted.
type Write struct {
	// Seq numbers the writes from 1 in the order they arrived.
	Seq    int    `json:"seq"`
	Method string `json:"method"`
	// Path is the URL path, without the query.
	Path string `json:"path"`
	// Fields are the names of the form fields sent (url-encoded or
	// multipart bodies), sorted; values are not kept.
	Fields []string `json:"fields,omitempty"`
	// Status is the response status, 0 while the request is served or
	// when it ended without a response.
	Status int `json:"status"`
}

// isWrite reports whether method can change server state.
func isWrite(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// recordWrite appends r to the record and returns its index. Form field
// names are read after the handler parsed the form (see finishWrite).
func (s *Site) recordWrite(r *http.Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, Write{Seq: len(s.writes) + 1, Method: r.Method, Path: r.URL.Path})
	return len(s.writes) - 1
}

// finishWrite records the status and the form's field names.
func (s *Site) finishWrite(i int, status int, r *http.Request) {
	var fields []string
	if r.PostForm != nil {
		for k := range r.PostForm {
			fields = append(fields, k)
		}
		sort.Strings(fields)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes[i].Status = status
	s.writes[i].Fields = fields
}

// Writes returns a copy of every state-changing request received, in
// arrival order.
func (s *Site) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Write, len(s.writes))
	for i, w := range s.writes {
		w.Fields = append([]string(nil), w.Fields...)
		out[i] = w
	}
	return out
}

// Count returns how many state-changing requests had method ("" for any)
// and a path starting with pathPrefix ("" for any).
func (s *Site) Count(method, pathPrefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.writes {
		if (method == "" || strings.EqualFold(w.Method, method)) && strings.HasPrefix(w.Path, pathPrefix) {
			n++
		}
	}
	return n
}

// testWrites is GET /__test/writes: the record as JSON, {"writes": [...]}.
func (s *Site) testWrites(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Writes []Write `json:"writes"`
	}{s.Writes()})
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeJSON writes v as indented JSON with a trailing newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, `{"error":"encode failed"}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
