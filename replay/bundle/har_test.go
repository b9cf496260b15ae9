package bundle

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"
)

// harSchema lists, per HAR 1.2 object, its required fields and their JSON
// types ("string", "number", "object", "array", "boolean").
var harSchema = map[string]map[string]string{
	"log":      {"version": "string", "creator": "object", "entries": "array"},
	"creator":  {"name": "string", "version": "string"},
	"page":     {"startedDateTime": "string", "id": "string", "title": "string", "pageTimings": "object"},
	"entry":    {"startedDateTime": "string", "time": "number", "request": "object", "response": "object", "cache": "object", "timings": "object"},
	"request":  {"method": "string", "url": "string", "httpVersion": "string", "cookies": "array", "headers": "array", "queryString": "array", "headersSize": "number", "bodySize": "number"},
	"response": {"status": "number", "statusText": "string", "httpVersion": "string", "cookies": "array", "headers": "array", "content": "object", "redirectURL": "string", "headersSize": "number", "bodySize": "number"},
	"content":  {"size": "number", "mimeType": "string"},
	"timings":  {"send": "number", "wait": "number", "receive": "number"},
	"nv":       {"name": "string", "value": "string"},
	"postData": {"mimeType": "string", "text": "string"},
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case bool:
		return "boolean"
	}
	return "null"
}

func requireShape(t *testing.T, where, kind string, v any) map[string]any {
	t.Helper()
	obj, ok := v.(map[string]any)
	require(t, ok, "%s: %s is %s, not an object", where, kind, jsonType(v))
	for field, typ := range harSchema[kind] {
		got, present := obj[field]
		require(t, present, "%s: %s lacks required field %q", where, kind, field)
		require(t, jsonType(got) == typ, "%s: %s.%s is %s, want %s", where, kind, field, jsonType(got), typ)
	}
	return obj
}

func TestHARStructure(t *testing.T) {
	b := smallBundle(t)
	data, err := HAR(b)
	requireNoErr(t, err)
	again, err := HAR(b)
	requireNoErr(t, err)
	require(t, bytes.Equal(data, again), "HAR is not deterministic")

	var doc map[string]any
	requireNoErr(t, json.Unmarshal(data, &doc))
	log := requireShape(t, "har", "log", doc["log"])
	require(t, log["version"] == "1.2", "version %v", log["version"])
	creator := requireShape(t, "log", "creator", log["creator"])
	require(t, creator["name"] == "multiverse" && creator["version"] == Schema, "creator %v", creator)

	pages := log["pages"].([]any)
	require(t, len(pages) == len(b.Steps), "%d pages for %d steps", len(pages), len(b.Steps))
	pageIDs := map[string]bool{}
	for i, p := range pages {
		page := requireShape(t, "pages", "page", p)
		require(t, page["id"] == pageID(i+1) && page["title"] == b.Steps[i].URL, "page %d: %v", i, page)
		_, err := time.Parse(time.RFC3339Nano, page["startedDateTime"].(string))
		requireNoErr(t, err)
		pageIDs[page["id"].(string)] = true
	}

	entries := log["entries"].([]any)
	require(t, len(entries) == len(b.Network), "%d entries for %d requests", len(entries), len(b.Network))
	for i, raw := range entries {
		e := b.Network[i]
		entry := requireShape(t, "entries", "entry", raw)
		started, err := time.Parse(time.RFC3339Nano, entry["startedDateTime"].(string))
		requireNoErr(t, err)
		require(t, started.Equal(time.UnixMilli(b.Manifest.Environment.ClockMS+e.StartedMS)), "entry %d started %v", i, started)
		require(t, entry["time"].(float64) == float64(e.DurationMS), "entry %d time %v", i, entry["time"])
		require(t, pageIDs[entry["pageref"].(string)], "entry %d pageref %v names no page", i, entry["pageref"])
		require(t, entry["_step"].(float64) == float64(e.Step) && entry["_seq"].(float64) == float64(e.Seq), "entry %d custom fields %v", i, entry)
		require(t, entry["_blocked"] == e.Blocked, "entry %d _blocked", i)
		if e.Error != "" {
			require(t, entry["_error"] == e.Error, "entry %d _error %v", i, entry["_error"])
		}
		if e.Unsupported != "" {
			require(t, entry["_unsupported"] == e.Unsupported, "entry %d _unsupported %v", i, entry["_unsupported"])
		}
		requireShape(t, "entry", "timings", entry["timings"])

		req := requireShape(t, "entry", "request", entry["request"])
		require(t, req["method"] == e.Method && req["url"] == e.URL, "entry %d request %v", i, req)
		for _, h := range req["headers"].([]any) {
			requireShape(t, "request.headers", "nv", h)
		}
		for _, q := range req["queryString"].([]any) {
			requireShape(t, "request.queryString", "nv", q)
		}
		if e.RequestBodySHA256 != "" {
			pd := requireShape(t, "request", "postData", req["postData"])
			require(t, pd["text"] == "" && pd["_bodySha256"] == e.RequestBodySHA256 && pd["mimeType"] == "application/json", "entry %d postData %v", i, pd)
		} else {
			_, has := req["postData"]
			require(t, !has, "entry %d has postData without a body", i)
		}

		resp := requireShape(t, "entry", "response", entry["response"])
		require(t, resp["status"].(float64) == float64(e.Status) && resp["statusText"] == e.StatusText, "entry %d response %v", i, resp)
		content := requireShape(t, "response", "content", resp["content"])
		if e.BodySHA256 != "" {
			require(t, content["_sha256"] == e.BodySHA256 && content["encoding"] == "base64", "entry %d content %v", i, content)
			body, err := base64.StdEncoding.DecodeString(content["text"].(string))
			requireNoErr(t, err)
			require(t, sumHex(body) == e.BodySHA256 && content["size"].(float64) == float64(len(body)), "entry %d body does not round-trip", i)
		} else {
			_, has := content["text"]
			require(t, !has, "entry %d has text without a body", i)
		}
	}
	// Specific values.
	e0 := entries[0].(map[string]any)
	require(t, e0["response"].(map[string]any)["content"].(map[string]any)["mimeType"] == "text/html; charset=utf-8", "mimeType of entry 0")
	e2 := entries[2].(map[string]any)
	require(t, e2["response"].(map[string]any)["redirectURL"] == "/pricing/team", "redirectURL of entry 2")
	qs := e2["request"].(map[string]any)["queryString"].([]any)
	require(t, len(qs) == 2 && qs[0].(map[string]any)["name"] == "b", "queryString keeps URL order: %v", qs)
	e1 := entries[1].(map[string]any)
	require(t, e1["response"].(map[string]any)["content"].(map[string]any)["mimeType"] == "text/css", "Content-Type looked up case-insensitively")
}

func TestHAREmpty(t *testing.T) {
	data, err := HAR(&Bundle{})
	requireNoErr(t, err)
	var doc struct {
		Log struct {
			Pages   []any `json:"pages"`
			Entries []any `json:"entries"`
		} `json:"log"`
	}
	requireNoErr(t, json.Unmarshal(data, &doc))
	require(t, doc.Log.Pages != nil && doc.Log.Entries != nil, "empty HAR must have [] pages and entries: %s", data)
}

// TestHARRequestBodyAndCookies: a stored (scrubbed) request body is the
// entry's postData text, and the Cookie and Set-Cookie headers are listed
// as cookies, name and value, in HAR's shape.
func TestHARRequestBodyAndCookies(t *testing.T) {
	b := smallBundle(t)
	body := []byte(`{"seats":10,"email":"tok_5f2c"}`)
	e := &b.Network[0]
	e.RequestBodySHA256 = sumHex(body)
	e.RequestHeaders = map[string]string{"content-type": "application/json", "cookie": "mv_ab=A; mv_session=tok_91ab"}
	e.ResponseHeaders["set-cookie"] = "mv_session=tok_77cd; Path=/; HttpOnly\nmv_consent=1"
	b.Files[BodyPath(e.RequestBodySHA256)] = body
	data, err := HAR(b)
	requireNoErr(t, err)
	var doc map[string]any
	requireNoErr(t, json.Unmarshal(data, &doc))
	entry := doc["log"].(map[string]any)["entries"].([]any)[0].(map[string]any)
	req := requireShape(t, "entry", "request", entry["request"])
	pd := requireShape(t, "request", "postData", req["postData"])
	require(t, pd["text"] == string(body) && req["bodySize"].(float64) == float64(len(body)), "postData %v, bodySize %v", pd, req["bodySize"])
	names := func(list []any) []string {
		var out []string
		for _, c := range list {
			nv := requireShape(t, "cookies", "nv", c)
			out = append(out, nv["name"].(string)+"="+nv["value"].(string))
		}
		return out
	}
	got := names(req["cookies"].([]any))
	require(t, len(got) == 2 && got[0] == "mv_ab=A" && got[1] == "mv_session=tok_91ab", "request cookies %v", got)
	resp := requireShape(t, "entry", "response", entry["response"])
	got = names(resp["cookies"].([]any))
	require(t, len(got) == 2 && got[0] == "mv_session=tok_77cd" && got[1] == "mv_consent=1", "response cookies %v", got)
}
