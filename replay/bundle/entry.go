package bundle

import "github.com/multiverse-orchestrator/multiverse/branch"

// Entry is one request/response pair of the branch, in request order
// (strictly increasing Seq). Header values and URLs are scrubbed at
// capture time. One line of network.jsonl.
type Entry struct {
	Seq int `json:"seq"`
	// Step is the 1-based step that issued the request.
	Step   int    `json:"step"`
	Method string `json:"method"`
	// URL is the request URL as recorded (already scrubbed).
	URL            string            `json:"url"`
	RequestHeaders map[string]string `json:"request_headers,omitempty"`
	// RequestBodySHA256 is the hex sha256 of the request body, "" when
	// there is none. Request bodies are not stored.
	RequestBodySHA256 string            `json:"request_body_sha256,omitempty"`
	Status            int               `json:"status"`
	StatusText        string            `json:"status_text,omitempty"`
	ResponseHeaders   map[string]string `json:"response_headers,omitempty"`
	// BodySHA256 is the hex sha256 of the response body stored at
	// BodyPath(BodySHA256); "" when there is none (redirects, failures).
	BodySHA256   string `json:"body_sha256,omitempty"`
	BodySize     int    `json:"body_size,omitempty"`
	ResourceType string `json:"resource_type,omitempty"`
	// Blocked is set when the branch was not allowed to send the request,
	// Error when it failed, Unsupported when the capture cannot record the
	// traffic faithfully (WebSocket, server-sent events).
	Blocked     bool   `json:"blocked,omitempty"`
	Error       string `json:"error,omitempty"`
	Unsupported string `json:"unsupported,omitempty"`
	// Late says the request was still in flight when its step was
	// observed: a replay answers it only once the next step begins.
	Late bool `json:"late,omitempty"`
	// StartedMS is the start relative to Environment.ClockMS and
	// DurationMS the duration, both optional, used for HAR timings.
	StartedMS  int64 `json:"started_ms,omitempty"`
	DurationMS int64 `json:"duration_ms,omitempty"`
}

// EntryFromRecord converts a captured network record into a bundle entry.
// Fields the record does not carry (StatusText) stay zero.
func EntryFromRecord(r branch.NetRecord) Entry {
	return Entry{
		Seq:               r.Seq,
		Step:              r.Step,
		Method:            r.Method,
		URL:               r.URL,
		RequestHeaders:    r.ReqHeaders,
		RequestBodySHA256: r.ReqBodyHash,
		Status:            r.Status,
		ResponseHeaders:   r.RespHeaders,
		BodySHA256:        r.BodyHash,
		BodySize:          r.BodySize,
		ResourceType:      r.Type,
		Blocked:           r.Blocked,
		Error:             r.Error,
		Unsupported:       r.Unsupported,
		Late:              r.Late,
		StartedMS:         r.StartedMS,
		DurationMS:        r.DurationMS,
	}
}
