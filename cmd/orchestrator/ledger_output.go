package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// How the ledger reads on a terminal: `ledger list` as a table that fits
// listWidth columns, `ledger show` as one field per line.

// listWidth is the width `ledger list` keeps to.
const listWidth = 120

// Widths of the columns of `ledger list` that are cut to fit; a cut id
// ends in "…" and, typed back, names what it starts (see resolve.go).
const (
	listIDWidth    = 13 // 12 characters of a ULID and "…"
	listOrderWidth = 14
	listMinKey     = 12
	listKeyDigest  = 8 // hex characters kept of a digest in a key
)

// printLedgerList writes entries as a table no line of which exceeds
// listWidth runes: entry and run ids cut to their first 12 characters
// (ledger show, events and bundle take them so), the time to the minute,
// the digest in the idempotency key shortened and the key cut to the
// width left.
func printLedgerList(w io.Writer, es []ledger.Entry) {
	rows := [][]string{{"ENTRY", "STATE", "ORDER", "TRIES", "RUN", "UPDATED (UTC)", "KEY"}}
	for _, e := range es {
		rows = append(rows, []string{clipTo(e.ID, listIDWidth), string(e.State), clipTo(orDash(e.OrderID), listOrderWidth),
			strconv.Itoa(e.Attempts), clipTo(e.RunID, listIDWidth), e.UpdatedAt.UTC().Format("2006-01-02 15:04"), shortKey(e.Key)})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r[:len(r)-1] {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	used := 0
	for _, wd := range widths[:len(widths)-1] {
		used += wd + 2
	}
	keyWidth := max(listWidth-used, listMinKey)
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r[:len(r)-1] {
			fmt.Fprintf(&b, "%-*s  ", widths[i], c)
		}
		b.WriteString(clipTo(r[len(r)-1], keyWidth))
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// printEntry writes a ledger entry one field per line, then its
// evidence and its transitions as lists.
func printEntry(w io.Writer, e ledger.Entry, hist []ledger.Transition) {
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "%-13s %s\n", name, value)
		}
	}
	field("entry", e.ID)
	field("state", string(e.State))
	field("attempts", strconv.Itoa(e.Attempts))
	field("order", e.OrderID)
	field("key", e.Key)
	field("run", e.RunID)
	field("branch", e.BranchID)
	field("plan", e.PlanDigest)
	field("site", e.Site)
	field("flow", e.Flow)
	field("created", e.CreatedAt.UTC().Format(time.RFC3339))
	field("updated", e.UpdatedAt.UTC().Format(time.RFC3339))
	field("intent", genericFields(e.Payload).String())
	field("intent sha256", e.PayloadSHA256)
	field("confirmation", genericFields(e.Confirmation).String())
	field("error", strings.Join(strings.Fields(e.Error), " "))
	if a := e.Anchor; a != nil {
		if raw, err := json.Marshal(a); err == nil {
			field("anchor", genericFields(raw).String())
		}
	}
	if len(e.Artifacts) > 0 {
		fmt.Fprintln(w, "evidence")
		for _, k := range slices.Sorted(maps.Keys(e.Artifacts)) {
			fmt.Fprintf(w, "  %-24s sha256:%s\n", k, e.Artifacts[k])
		}
	}
	if c := e.Compensation; c != nil {
		fmt.Fprintln(w, "undo")
		fmt.Fprintf(w, "  %-12s %s\n  %-12s %s\n  %-12s %d (run %s)\n", "key", c.Key, "reason", c.Reason, "attempts", c.Attempts, c.RunID)
		if len(c.Confirmation) > 0 {
			fmt.Fprintf(w, "  %-12s %s\n", "confirmation", genericFields(c.Confirmation).String())
		}
		if c.Error != "" {
			fmt.Fprintf(w, "  %-12s %s\n", "error", strings.Join(strings.Fields(c.Error), " "))
		}
		for _, k := range slices.Sorted(maps.Keys(c.Artifacts)) {
			fmt.Fprintf(w, "  %-24s sha256:%s\n", k, c.Artifacts[k])
		}
	}
	if len(hist) > 0 {
		fmt.Fprintln(w, "transitions")
		for _, t := range hist {
			from := string(t.From)
			if from == "" {
				from = "-"
			}
			fmt.Fprintf(w, "  #%-3d %s  %-8s %s -> %s  %s\n", t.Seq, t.At.UTC().Format(time.RFC3339), t.Op, from, t.To, shortHash(t.Hash))
		}
	}
}

// shortHash is a transition hash's first 16 characters.
func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}

// hexRun matches a digest inside an idempotency key.
var hexRun = regexp.MustCompile(`[0-9a-f]{32,}`)

// shortKey shortens the digests in an idempotency key to their first
// listKeyDigest characters.
func shortKey(k string) string {
	return hexRun.ReplaceAllStringFunc(k, func(h string) string { return h[:listKeyDigest] + "…" })
}
