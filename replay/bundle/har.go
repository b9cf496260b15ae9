package bundle

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// harCreatorName is log.creator.name of every HAR this package writes; the
// creator version is [Schema].
const harCreatorName = "multiverse"

// harTime is the ISO 8601 form of HAR dates (UTC, milliseconds).
const harTime = "2006-01-02T15:04:05.000Z07:00"

type harDoc struct {
	Log harLog `json:"log"`
}

type harLog struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Pages   []harPage  `json:"pages"`
	Entries []harEntry `json:"entries"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harPage struct {
	StartedDateTime string         `json:"startedDateTime"`
	ID              string         `json:"id"`
	Title           string         `json:"title"`
	PageTimings     harPageTimings `json:"pageTimings"`
}

type harPageTimings struct {
	OnContentLoad int64 `json:"onContentLoad"`
	OnLoad        int64 `json:"onLoad"`
}

type harEntry struct {
	Pageref         string      `json:"pageref,omitempty"`
	StartedDateTime string      `json:"startedDateTime"`
	Time            int64       `json:"time"`
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         harTimings  `json:"timings"`
	ResourceType    string      `json:"_resourceType,omitempty"`
	Step            int         `json:"_step"`
	Seq             int         `json:"_seq"`
	Blocked         bool        `json:"_blocked"`
	Error           string      `json:"_error,omitempty"`
	Unsupported     string      `json:"_unsupported,omitempty"`
	// WebSocketMessages are a WebSocket's frames, as browser developer
	// tools export them; EventSourceMessages an event stream's events.
	WebSocketMessages   []harWSMessage `json:"_webSocketMessages,omitempty"`
	EventSourceMessages []harESMessage `json:"_eventSourceMessages,omitempty"`
}

// harWSMessage is one WebSocket frame: type "send" or "receive", time in
// seconds since the Unix epoch, opcode 1 (text) or 2 (binary, data in
// base64).
type harWSMessage struct {
	Type   string  `json:"type"`
	Time   float64 `json:"time"`
	Opcode int     `json:"opcode"`
	Data   string  `json:"data"`
}

// harESMessage is one event of an event stream.
type harESMessage struct {
	Time      float64 `json:"time"`
	EventName string  `json:"eventName"`
	EventID   string  `json:"eventId"`
	Data      string  `json:"data"`
}

type harNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harRequest struct {
	Method      string       `json:"method"`
	URL         string       `json:"url"`
	HTTPVersion string       `json:"httpVersion"`
	Cookies     []harNV      `json:"cookies"`
	Headers     []harNV      `json:"headers"`
	QueryString []harNV      `json:"queryString"`
	PostData    *harPostData `json:"postData,omitempty"`
	HeadersSize int64        `json:"headersSize"`
	BodySize    int64        `json:"bodySize"`
}

type harPostData struct {
	MimeType   string `json:"mimeType"`
	Text       string `json:"text"`
	BodySHA256 string `json:"_bodySha256"`
}

type harResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []harNV    `json:"cookies"`
	Headers     []harNV    `json:"headers"`
	Content     harContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int64      `json:"headersSize"`
	BodySize    int64      `json:"bodySize"`
}

type harContent struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
	SHA256   string `json:"_sha256,omitempty"`
	Text     string `json:"text,omitempty"`
	Encoding string `json:"encoding,omitempty"`
}

type harTimings struct {
	Blocked int64 `json:"blocked"`
	DNS     int64 `json:"dns"`
	Connect int64 `json:"connect"`
	Send    int64 `json:"send"`
	Wait    int64 `json:"wait"`
	Receive int64 `json:"receive"`
	SSL     int64 `json:"ssl"`
}

// HAR renders b's network as HAR 1.2 JSON, the network.har of the bundle,
// for standard tools (browser developer tools, HAR validators):
//   - log.version "1.2", log.creator {name "multiverse", version Schema};
//   - one page per step, id "step-N", title the step's URL, started at the
//     step's virtual time (or the manifest clock when it has none);
//   - one entry per Entry in order, started at Environment.ClockMS +
//     StartedMS (the capture's wall offset from the session's start),
//     time DurationMS, with request (headers sorted by name, cookies from
//     the Cookie header, query string in URL order, postData {mimeType,
//     text, _bodySha256} when the request had a body: text is the stored
//     (scrubbed) body when the bundle holds it), response (cookies from
//     Set-Cookie, content with _sha256 and, when the body is in Files,
//     its bytes in base64), empty cache, timings {send 0, wait
//     DurationMS, receive 0, others -1}, pageref of the issuing step, and
//     the custom fields _step, _seq, _blocked, _error, _unsupported,
//     _resourceType;
//   - after them, one entry per WebSocket connection the steps' live
//     entries hold (GET, status 101, _resourceType "websocket", _seq 0),
//     its frames in _webSocketMessages {type send or receive, time,
//     opcode, data} as browser developer tools export them; an event
//     stream's events go to its request's entry as _eventSourceMessages
//     {time, eventName, eventId, data}.
//
// The capture does not record the protocol version or header sizes:
// httpVersion is "HTTP/1.1" and headersSize -1. HAR is a pure function of
// b and fails only if b holds values JSON cannot encode.
func HAR(b *Bundle) ([]byte, error) {
	env := b.Manifest.Environment
	doc := harDoc{Log: harLog{
		Version: "1.2",
		Creator: harCreator{Name: harCreatorName, Version: Schema},
		Pages:   make([]harPage, 0, len(b.Steps)),
		Entries: make([]harEntry, 0, len(b.Network)),
	}}
	pages := make(map[int]bool, len(b.Steps))
	for _, s := range b.Steps {
		at := s.VirtualTimeMS
		if at == 0 {
			at = env.ClockMS
		}
		doc.Log.Pages = append(doc.Log.Pages, harPage{
			StartedDateTime: harDate(at),
			ID:              pageID(s.Index),
			Title:           s.URL,
			PageTimings:     harPageTimings{OnContentLoad: -1, OnLoad: -1},
		})
		pages[s.Index] = true
	}
	for i := range b.Network {
		e := &b.Network[i]
		he := harEntry{
			StartedDateTime: harDate(env.ClockMS + e.StartedMS),
			Time:            max(e.DurationMS, 0),
			Request: harRequest{
				Method:      e.Method,
				URL:         e.URL,
				HTTPVersion: "HTTP/1.1",
				Cookies:     []harNV{},
				Headers:     harHeaders(e.RequestHeaders),
				QueryString: harQuery(e.URL),
				HeadersSize: -1,
				BodySize:    0,
			},
			Response: harResponse{
				Status:      e.Status,
				StatusText:  e.StatusText,
				HTTPVersion: "HTTP/1.1",
				Cookies:     []harNV{},
				Headers:     harHeaders(e.ResponseHeaders),
				Content: harContent{
					Size:     int64(e.BodySize),
					MimeType: headerValue(e.ResponseHeaders, "content-type", "x-unknown"),
					SHA256:   e.BodySHA256,
				},
				RedirectURL: headerValue(e.ResponseHeaders, "location", ""),
				HeadersSize: -1,
				BodySize:    0,
			},
			Timings:      harTimings{Blocked: -1, DNS: -1, Connect: -1, Send: 0, Wait: max(e.DurationMS, 0), Receive: 0, SSL: -1},
			ResourceType: e.ResourceType,
			Step:         e.Step,
			Seq:          e.Seq,
			Blocked:      e.Blocked,
			Error:        e.Error,
			Unsupported:  e.Unsupported,
		}
		if pages[e.Step] {
			he.Pageref = pageID(e.Step)
		}
		if e.RequestBodySHA256 != "" {
			he.Request.BodySize = -1
			he.Request.PostData = &harPostData{
				MimeType:   headerValue(e.RequestHeaders, "content-type", "application/octet-stream"),
				BodySHA256: e.RequestBodySHA256,
			}
			if body, ok := b.Body(e.RequestBodySHA256); ok {
				he.Request.BodySize = int64(len(body))
				he.Request.PostData.Text = string(body)
			}
		}
		he.Request.Cookies = cookieHeader(headerValue(e.RequestHeaders, "cookie", ""))
		he.Response.Cookies = setCookies(headerValue(e.ResponseHeaders, "set-cookie", ""))
		if e.BodySHA256 != "" {
			he.Response.BodySize = int64(e.BodySize)
			if body, ok := b.Body(e.BodySHA256); ok {
				he.Response.Content.Text = base64.StdEncoding.EncodeToString(body)
				he.Response.Content.Encoding = "base64"
			}
		}
		doc.Log.Entries = append(doc.Log.Entries, he)
	}
	addLive(b, &doc.Log)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("bundle: har: %w", err)
	}
	return buf.Bytes(), nil
}

// liveConn is one live channel connection of a bundle's steps.
type liveConn struct {
	step int
	url  string
	ws   []harWSMessage
	es   []harESMessage
}

// liveConns walks the steps' live entries: a "new" entry starts a
// connection, and the entries after it with its number belong to it until
// another "new" reuses the number (a new document numbers from 1 again).
func liveConns(b *Bundle) []*liveConn {
	var out []*liveConn
	cur := map[int]*liveConn{}
	for _, s := range b.Steps {
		at := float64(s.VirtualTimeMS) / 1000
		for _, f := range s.Live {
			if f.Kind == branch.LiveNew {
				c := &liveConn{step: s.Index, url: f.URL}
				cur[f.Conn] = c
				out = append(out, c)
				continue
			}
			c := cur[f.Conn]
			if c == nil || (f.Kind != branch.LiveIn && f.Kind != branch.LiveOut) {
				continue
			}
			if isWebSocketURL(c.url) {
				m := harWSMessage{Type: "receive", Time: at, Opcode: 1, Data: f.Data}
				if f.Kind == branch.LiveOut {
					m.Type = "send"
				}
				if f.Binary {
					m.Opcode = 2
				}
				c.ws = append(c.ws, m)
			} else if f.Kind == branch.LiveIn {
				c.es = append(c.es, harESMessage{Time: at, EventName: f.Type, EventID: f.ID, Data: f.Data})
			}
		}
	}
	return out
}

func isWebSocketURL(u string) bool {
	return strings.HasPrefix(u, "ws://") || strings.HasPrefix(u, "wss://")
}

// harLiveEntries is how many entries addLive adds to a bundle's HAR: one
// per WebSocket connection.
func harLiveEntries(b *Bundle) int {
	n := 0
	for _, c := range liveConns(b) {
		if isWebSocketURL(c.url) {
			n++
		}
	}
	return n
}

// addLive puts the live channels into the HAR: a WebSocket connection is
// an entry of its own (status 101, its frames in _webSocketMessages), an
// event stream's events go to its request's entry (_eventSourceMessages).
func addLive(b *Bundle, l *harLog) {
	used := map[int]bool{}
	for _, c := range liveConns(b) {
		if !isWebSocketURL(c.url) {
			for i := range l.Entries {
				if e := &l.Entries[i]; !used[i] && e.Request.URL == c.url && e.Step <= c.step {
					used[i] = true
					e.EventSourceMessages = c.es
					break
				}
			}
			continue
		}
		at := b.Manifest.Environment.ClockMS
		for _, s := range b.Steps {
			if s.Index == c.step && s.VirtualTimeMS != 0 {
				at = s.VirtualTimeMS
			}
		}
		l.Entries = append(l.Entries, harEntry{
			Pageref: pageID(c.step), StartedDateTime: harDate(at), Time: 0,
			Request: harRequest{Method: "GET", URL: c.url, HTTPVersion: "HTTP/1.1", Cookies: []harNV{}, Headers: []harNV{},
				QueryString: harQuery(c.url), HeadersSize: -1},
			Response: harResponse{Status: 101, StatusText: "Switching Protocols", HTTPVersion: "HTTP/1.1", Cookies: []harNV{},
				Headers: []harNV{}, Content: harContent{MimeType: "x-unknown"}, HeadersSize: -1},
			Timings:      harTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1},
			ResourceType: "websocket", Step: c.step, WebSocketMessages: c.ws,
		})
	}
}

// cookieHeader lists the cookies of a Cookie header ("a=1; b=2"); the
// values are as captured (scrubbed to tokens).
func cookieHeader(h string) []harNV {
	out := []harNV{}
	for _, part := range strings.Split(h, ";") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && name != "" {
			out = append(out, harNV{Name: name, Value: value})
		}
	}
	return out
}

// setCookies lists the cookies of Set-Cookie headers (several are joined
// by newlines in a captured header): each one's name and value, without
// its attributes.
func setCookies(h string) []harNV {
	out := []harNV{}
	for _, line := range strings.Split(h, "\n") {
		first, _, _ := strings.Cut(line, ";")
		name, value, ok := strings.Cut(strings.TrimSpace(first), "=")
		if ok && name != "" {
			out = append(out, harNV{Name: name, Value: value})
		}
	}
	return out
}

func pageID(step int) string { return "step-" + strconv.Itoa(step) }

// harDate formats ms since the Unix epoch as an ISO 8601 UTC date.
func harDate(ms int64) string { return time.UnixMilli(ms).UTC().Format(harTime) }

// harHeaders lists headers sorted by name, then value.
func harHeaders(h map[string]string) []harNV {
	out := make([]harNV, 0, len(h))
	for _, k := range sortedKeys(h) {
		out = append(out, harNV{Name: k, Value: h[k]})
	}
	return out
}

// harQuery lists the query parameters of rawURL in order, decoded where
// they decode.
func harQuery(rawURL string) []harNV {
	out := []harNV{}
	s, _, _ := strings.Cut(rawURL, "#")
	_, q, ok := strings.Cut(s, "?")
	if !ok {
		return out
	}
	for _, p := range strings.Split(q, "&") {
		if p == "" {
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		out = append(out, harNV{Name: k, Value: v})
	}
	return out
}

// headerValue looks a header up case-insensitively; the lowest-sorting
// matching name wins when several differ only in case.
func headerValue(h map[string]string, name, def string) string {
	keys := make([]string, 0, 1)
	for k := range h {
		if strings.EqualFold(k, name) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return def
	}
	sort.Strings(keys)
	return h[keys[0]]
}
