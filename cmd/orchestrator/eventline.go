package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// How `events` prints a run for people: one event per line, in sequence
// order,
//
//	19:43:21.573  #9    metric_update  …97A4EDYW  J=0.41 progress=0.5 confidence=1 credit=0.25 action="click Pricing"
//
// the time of day in UTC with milliseconds, the sequence number, the kind,
// the branch's short id ("-" for the run's own events), and the payload
// as key=value pairs: the typed payloads of eventlog/payload field by
// field, any other payload flattened one level. Empty values are left
// out, digests shortened, long text cut; a line never holds a newline.

const (
	lineMaxValue  = 60 // runes of one value
	lineMaxFields = 12 // key=value pairs of a payload without a type
	lineMaxRanks  = 3  // branches of a winner ranking shown
	lineDigestLen = 12 // characters of a digest shown
)

// printEvents writes es one per line, the kind column as wide as the
// widest kind among them.
func printEvents(w io.Writer, es []eventlog.Event) {
	width := 0
	for _, e := range es {
		width = max(width, utf8.RuneCountInString(e.Kind))
	}
	for _, e := range es {
		fmt.Fprintln(w, eventLine(e, width))
	}
}

// eventLine renders one event; kindWidth pads the kind column.
func eventLine(e eventlog.Event, kindWidth int) string {
	br := "-"
	if e.BranchID != "" {
		br = eventlog.ShortID(e.BranchID)
	}
	head := fmt.Sprintf("%s  #%-4d %-*s  %-9s", e.Time.UTC().Format("15:04:05.000"), e.Seq, kindWidth, oneToken(e.Kind), oneToken(br))
	f := payloadFields(e)
	if n := len(e.Artifacts); n > 0 {
		f.add("artifacts", strconv.Itoa(n))
	}
	return strings.TrimRight(head+"  "+f.String(), " ")
}

// fields is an ordered list of key=value pairs.
type fields []string

// add appends k=v unless v is empty.
func (f *fields) add(k, v string) {
	if v != "" {
		*f = append(*f, k+"="+v)
	}
}

// text adds a string value, quoted when it would not read as one token.
func (f *fields) text(k, v string) { f.add(k, quoteValue(v)) }

// num adds a number unless it is zero.
func (f *fields) num(k string, v float64) {
	if v != 0 {
		f.add(k, formatNum(v))
	}
}

// flag adds k=true when v holds.
func (f *fields) flag(k string, v bool) {
	if v {
		f.add(k, "true")
	}
}

func (f fields) String() string { return strings.Join(f, " ") }

// payloadFields renders e's payload: by its type when its kind has one
// and it decodes, else generically.
func payloadFields(e eventlog.Event) fields {
	if render, ok := typedRenderers[e.Kind]; ok {
		if f, err := render(e); err == nil {
			return f
		}
	}
	return genericFields(e.Payload)
}

// typedRenderers render the kinds with a typed payload.
var typedRenderers = map[string]func(eventlog.Event) (fields, error){
	eventlog.KindRunStart:     typed(runStartFields),
	eventlog.KindRunEnd:       typed(runEndFields),
	eventlog.KindBranchFork:   typed(forkFields),
	eventlog.KindMetricUpdate: typed(metricFields),
	eventlog.KindBranchPruned: typed(prunedFields),
	eventlog.KindWinner:       typed(winnerFields),
	eventlog.KindActionEnd:    typed(actionEndFields),
	eventlog.KindNav:          typed(navFields),
	eventlog.KindDOMSnapshot:  typed(snapshotFields),
	eventlog.KindNet:          typed(netFields),
	eventlog.KindLLMRequest:   typed(llmRequestFields),
	eventlog.KindLLMResponse:  typed(llmResponseFields),
	eventlog.KindRequestHeld:  typed(heldFields),
	eventlog.KindSideEffect:   typed(sideEffectFields),
}

// typed adapts a renderer of payload T to the events of T's kind.
func typed[T payload.Payload](render func(T) fields) func(eventlog.Event) (fields, error) {
	return func(e eventlog.Event) (fields, error) {
		p, err := payload.Decode[T](e)
		if err != nil {
			return nil, err
		}
		return render(p), nil
	}
}

func runStartFields(p payload.RunStart) fields {
	var f fields
	f.text("task", p.Task)
	f.text("start_url", p.StartURL)
	f.text("seed", p.Seed)
	f.num("workers", float64(p.Workers))
	f.add("commit", strconv.FormatBool(p.HasCommit))
	f.text("version", p.MultiverseVersion)
	f.text("browser", p.Fingerprint.Browser)
	if r := p.Reproduces; r != nil {
		f.text("reproduces", r.RunID+" ("+r.Mode+")")
	}
	return f
}

func runEndFields(p payload.RunEnd) fields {
	var f fields
	f.text("status", p.Status)
	f.add("exit", strconv.Itoa(p.ExitCode))
	f.add("elapsed", (time.Duration(p.ElapsedMS) * time.Millisecond).String())
	b := p.Branches
	f.add("branches", strconv.Itoa(b.Executed))
	f.num("forked", float64(b.Forked))
	f.num("boundary", float64(b.Boundary))
	f.num("pruned", float64(b.Pruned))
	f.num("failed", float64(b.Failed))
	f.text("error", p.Error)
	return f
}

func forkFields(p payload.BranchFork) fields {
	var f fields
	if p.Parent != "" {
		f.add("parent", eventlog.ShortID(p.Parent))
	}
	f.add("depth", strconv.Itoa(p.Depth))
	f.text("action", p.Action)
	f.text("reason", p.Reason)
	f.num("prior", p.Prior)
	f.num("utility", p.Utility)
	return f
}

func metricFields(p payload.MetricUpdate) fields {
	s := p.Score
	f := fields{"J=" + formatNum(s.J), "progress=" + formatNum(s.Progress)}
	f.num("confidence", s.Confidence)
	f.num("risk", s.Risk)
	f.num("cost", s.Cost)
	f.num("eta", s.ETA)
	f.num("credit", p.Credit)
	var flips []string
	for _, fl := range p.Flips {
		sign := "-"
		if fl.To {
			sign = "+"
		}
		flips = append(flips, sign+fl.Predicate)
	}
	f.text("flips", strings.Join(flips, ","))
	f.text("action", p.Action)
	return f
}

func prunedFields(p payload.BranchPruned) fields {
	var f fields
	f.text("rule", p.Rule)
	f.add("J", formatNum(p.J))
	f.num("progress", p.Progress)
	f.text("state", p.State)
	for _, k := range slices.Sorted(maps.Keys(p.Detail)) {
		f.add(oneToken(k), genericValue(p.Detail[k]))
	}
	return f
}

func winnerFields(p payload.Winner) fields {
	var f fields
	f.add("ranked", strconv.Itoa(len(p.Ranking)))
	var ranks []string
	for i, r := range p.Ranking {
		if i == lineMaxRanks {
			ranks = append(ranks, "…")
			break
		}
		ranks = append(ranks, eventlog.ShortID(r.BranchID)+":J="+formatNum(r.J))
	}
	f.add("ranking", strings.Join(ranks, ","))
	return f
}

func actionEndFields(p payload.ActionEnd) fields {
	var f fields
	f.add("step", strconv.Itoa(p.Step))
	f.text("status", p.Status)
	f.text("code", string(p.Code))
	f.text("strategy", p.Strategy)
	f.add("took", (time.Duration(p.DurationMS) * time.Millisecond).String())
	f.flag("replayed", p.Replayed)
	f.text("error", p.Error)
	f.text("via", p.Via)
	f.text("slow", p.Slow)
	if n := p.Nav; n != nil && n.Final != n.Original {
		f.text("redirected", n.Original+" -> "+n.Final)
	}
	if n := len(p.Console); n > 0 {
		// How many, and the first: the dashboard's step view lists them all.
		f.add("console", strconv.Itoa(n))
		f.text("said", p.Console[0].Type+": "+p.Console[0].Text)
	}
	return f
}

func navFields(p payload.Nav) fields {
	var f fields
	f.num("status", float64(p.Status))
	f.text("url", p.URL)
	f.text("title", p.Title)
	return f
}

func snapshotFields(p payload.DOMSnapshot) fields {
	var f fields
	f.add("affordances", strconv.Itoa(p.Affordances))
	var holds []string
	for _, k := range slices.Sorted(maps.Keys(p.Predicates)) {
		if p.Predicates[k] {
			holds = append(holds, k)
		}
	}
	f.text("holds", strings.Join(holds, ","))
	f.flag("at_boundary", p.AtBoundary)
	f.num("dead_ends", float64(len(p.DeadEnds)))
	f.add("dom", shortDigest(p.DOMHash))
	return f
}

func netFields(p payload.Net) fields {
	var f fields
	f.text("method", p.Method)
	f.text("url", p.URL)
	f.num("status", float64(p.Status))
	f.num("bytes", float64(p.BodySize))
	f.flag("blocked", p.Blocked)
	f.text("unsupported", p.Unsupported)
	f.text("error", p.Error)
	return f
}

func heldFields(p payload.RequestHeld) fields {
	var f fields
	f.text("request", p.Method+" "+p.Origin+p.Path)
	f.text("reason", p.Reason)
	f.flag("caused", p.Caused)
	f.num("times", float64(p.Count))
	f.text("fields", strings.Join(p.Fields, ","))
	return f
}

func sideEffectFields(p payload.SideEffect) fields {
	var f fields
	f.text("request", p.Describe())
	f.text("action", p.Action)
	f.text("fields", strings.Join(p.Fields, ","))
	f.text("url", p.URL)
	return f
}

func llmRequestFields(p payload.LLMRequest) fields {
	var f fields
	f.num("step", float64(p.Step))
	f.add("fingerprint", short(p.Fingerprint))
	f.text("model", p.Model)
	f.add("prompt", p.PromptVersion)
	f.num("menu", float64(p.Menu))
	f.num("fields", float64(p.Fields))
	f.add("mode", p.Mode)
	return f
}

func llmResponseFields(p payload.LLMResponse) fields {
	var f fields
	f.num("step", float64(p.Step))
	f.add("fingerprint", short(p.Fingerprint))
	if len(p.Ranking) > 0 {
		r := make([]string, len(p.Ranking))
		for i, id := range p.Ranking {
			r[i] = strconv.Itoa(id)
		}
		f.add("ranking", strings.Join(r, ","))
	}
	f.num("values", float64(p.Values))
	f.num("prompt_tokens", float64(p.PromptTokens))
	f.num("completion_tokens", float64(p.CompletionTokens))
	if p.Cost != 0 { // a model's cost is often under the 0.001 numbers round to
		f.add("cost", strconv.FormatFloat(p.Cost, 'f', -1, 64))
	}
	f.num("latency_ms", float64(p.LatencyMS))
	f.flag("from_cassette", p.FromCassette)
	f.text("fallback", p.Fallback)
	return f
}

// genericFields renders a payload without a type: an object's keys in
// order, nested objects flattened one level (parent.key=value), at most
// lineMaxFields pairs; anything else as payload=value.
func genericFields(raw json.RawMessage) fields {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fields{"payload=" + quoteValue(string(raw))}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fields{"payload=" + genericValue(v)}
	}
	var f fields
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if inner, ok := obj[k].(map[string]any); ok {
			for _, ik := range slices.Sorted(maps.Keys(inner)) {
				f.add(oneToken(k+"."+ik), genericValue(inner[ik]))
			}
			continue
		}
		f.add(oneToken(k), genericValue(obj[k]))
	}
	if len(f) > lineMaxFields {
		f = append(f[:lineMaxFields], fmt.Sprintf("…+%d", len(f)-lineMaxFields))
	}
	return f
}

// genericValue renders a decoded JSON value; "" for one not worth a
// field (null, "", false, an empty list or object).
func genericValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return quoteValue(shortDigest(v))
	case json.Number:
		if x, err := v.Float64(); err == nil {
			return formatNum(x)
		}
		return v.String()
	case float64:
		return formatNum(v)
	case bool:
		if v {
			return "true"
		}
		return ""
	case map[string]any:
		if len(v) == 0 {
			return ""
		}
		return fmt.Sprintf("{%d keys}", len(v))
	case []any:
		return listValue(v)
	}
	return quoteValue(fmt.Sprint(v))
}

// listValue shows a short list of scalars as a,b,c and any other list by
// its length.
func listValue(v []any) string {
	if len(v) == 0 {
		return ""
	}
	parts := make([]string, 0, len(v))
	for _, x := range v {
		switch x.(type) {
		case string, json.Number, bool:
			parts = append(parts, fmt.Sprint(x))
		default:
			return fmt.Sprintf("[%d]", len(v))
		}
	}
	if len(parts) > 5 {
		return fmt.Sprintf("[%d]", len(v))
	}
	return quoteValue(strings.Join(parts, ","))
}

// formatNum prints a number with at most three decimals and no trailing
// zeros: 0.41, 0.5, 3.
func formatNum(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// shortDigest shortens a hex digest (32 characters or more) to its first
// lineDigestLen; any other string is returned as is.
func shortDigest(s string) string {
	if len(s) < 32 {
		return s
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return s
		}
	}
	return s[:lineDigestLen]
}

// quoteValue cuts v to lineMaxValue runes and quotes it when it would not
// read as one token; "" stays "" (a field left out).
func quoteValue(v string) string {
	if v == "" {
		return ""
	}
	if utf8.RuneCountInString(v) > lineMaxValue {
		v = string([]rune(v)[:lineMaxValue-1]) + "…"
	}
	for _, r := range v {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '"' || r == '=' || r == '\\' {
			return strconv.Quote(v)
		}
	}
	return v
}

// oneToken keeps a key or a kind on one line and in one token.
func oneToken(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, s)
}
