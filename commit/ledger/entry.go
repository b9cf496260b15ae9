package ledger

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"time"
)

// Entry is one row of the commit ledger: a write intent and, once known, its
// outcome. Entries are values; changing one means calling a Ledger method.
type Entry struct {
	ID            string            `json:"id"`             // ULID assigned on intent
	Key           string            `json:"key"`            // idempotency key, unique in the ledger
	RunID         string            `json:"run_id"`         // run that recorded (or last reopened) the intent
	BranchID      string            `json:"branch_id"`      // winning branch whose path reached the commit
	PlanDigest    string            `json:"plan_digest"`    // that branch's plan digest
	Site          string            `json:"site"`           // site the side effect targets
	Flow          string            `json:"flow"`           // flow on that site, e.g. "checkout"
	Payload       json.RawMessage   `json:"payload"`        // canonical business intent (see Canonical)
	PayloadSHA256 string            `json:"payload_sha256"` // hex sha256 of Payload
	State         State             `json:"state"`
	Attempts      int               `json:"attempts"`               // side-effect attempts recorded with this key
	OrderID       string            `json:"order_id,omitempty"`     // confirmation token, set when committed
	Confirmation  json.RawMessage   `json:"confirmation,omitempty"` // canonical confirmation details, or nil
	Artifacts     map[string]string `json:"artifacts,omitempty"`    // evidence name -> artifact digest; nil when none
	Error         string            `json:"error,omitempty"`        // why the entry failed or aborted
	CreatedAt     time.Time         `json:"created_at"`             // UTC
	UpdatedAt     time.Time         `json:"updated_at"`             // UTC
	Anchor        *Anchor           `json:"anchor,omitempty"`       // the event log's head at Finalize, when given
	// Compensation is the undo of the committed side effect, once begun
	// (states compensating, compensated, compensation_failed); nil before.
	Compensation *Compensation `json:"compensation,omitempty"`
}

// timeLayout is how times are stored in SQLite and in snapshots: UTC, fixed
// width, so that text order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("ledger: bad time %q: %w", s, err)
	}
	return t, nil
}

// entryColumns lists the columns of the entries table in the order used by
// every query, by snapshot.fields and by Verify.
var entryColumns = [...]string{
	"id", "key", "run_id", "branch_id", "plan_digest", "site", "flow",
	"payload", "payload_sha256", "state", "attempts", "order_id",
	"confirmation", "artifacts", "error", "created_at", "updated_at", "anchor",
	"compensation",
}

const entrySelect = `SELECT id, key, run_id, branch_id, plan_digest, site, flow,
	payload, payload_sha256, state, attempts, order_id,
	confirmation, artifacts, error, created_at, updated_at, anchor, compensation FROM entries`

// entrySelectV2 reads a schema version 2 file (opened read-only), which has
// no compensation column.
const entrySelectV2 = `SELECT id, key, run_id, branch_id, plan_digest, site, flow,
	payload, payload_sha256, state, attempts, order_id,
	confirmation, artifacts, error, created_at, updated_at, anchor, '' AS compensation FROM entries`

// entrySelectV1 reads a schema version 1 file (opened read-only, so not
// migrated), which has no anchor column.
const entrySelectV1 = `SELECT id, key, run_id, branch_id, plan_digest, site, flow,
	payload, payload_sha256, state, attempts, order_id,
	confirmation, artifacts, error, created_at, updated_at, '' AS anchor, '' AS compensation FROM entries`

// snapshot is the canonical JSON form of an entry stored in the Data of each
// transition. Its fields are the entries columns, with the same names.
type snapshot struct {
	ID            string            `json:"id"`
	Key           string            `json:"key"`
	RunID         string            `json:"run_id"`
	BranchID      string            `json:"branch_id"`
	PlanDigest    string            `json:"plan_digest"`
	Site          string            `json:"site"`
	Flow          string            `json:"flow"`
	Payload       json.RawMessage   `json:"payload"`
	PayloadSHA256 string            `json:"payload_sha256"`
	State         State             `json:"state"`
	Attempts      int               `json:"attempts"`
	OrderID       string            `json:"order_id"`
	Confirmation  json.RawMessage   `json:"confirmation"` // null when none
	Artifacts     map[string]string `json:"artifacts"`    // {} when none
	Error         string            `json:"error"`
	CreatedAt     string            `json:"created_at"`
	UpdatedAt     string            `json:"updated_at"`
	Anchor        *Anchor           `json:"anchor,omitempty"` // absent when none (and in version 1 snapshots)
	// Compensation is absent before compensation begins (and in version 1
	// and 2 snapshots).
	Compensation *Compensation `json:"compensation,omitempty"`
}

func snapshotOf(e *Entry) snapshot {
	arts := make(map[string]string, len(e.Artifacts))
	maps.Copy(arts, e.Artifacts)
	return snapshot{
		ID: e.ID, Key: e.Key, RunID: e.RunID, BranchID: e.BranchID,
		PlanDigest: e.PlanDigest, Site: e.Site, Flow: e.Flow,
		Payload: e.Payload, PayloadSHA256: e.PayloadSHA256, State: e.State,
		Attempts: e.Attempts, OrderID: e.OrderID, Confirmation: e.Confirmation,
		Artifacts: arts, Error: e.Error,
		CreatedAt: formatTime(e.CreatedAt), UpdatedAt: formatTime(e.UpdatedAt),
		Anchor: e.Anchor, Compensation: e.Compensation,
	}
}

// canonical returns the canonical JSON of the snapshot.
func (s *snapshot) canonical() ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("ledger: encode snapshot: %w", err)
	}
	return Canonical(b)
}

// artifactsJSON returns the canonical JSON object of the artifacts map.
func artifactsJSON(arts map[string]string) (string, error) {
	if arts == nil {
		arts = map[string]string{}
	}
	b, err := json.Marshal(arts)
	if err != nil {
		return "", fmt.Errorf("ledger: encode artifacts: %w", err)
	}
	c, err := Canonical(b)
	if err != nil {
		return "", err
	}
	return string(c), nil
}

// fields returns the value each entries column must hold for this snapshot,
// in entryColumns order, as text (NULL only for a missing confirmation).
func (s *snapshot) fields() (rawEntry, error) {
	var out rawEntry
	payload, err := Canonical(s.Payload)
	if err != nil {
		return out, err
	}
	var conf sql.NullString
	if len(s.Confirmation) > 0 && string(s.Confirmation) != "null" {
		c, err := Canonical(s.Confirmation)
		if err != nil {
			return out, err
		}
		conf = sql.NullString{String: string(c), Valid: true}
	}
	arts, err := artifactsJSON(s.Artifacts)
	if err != nil {
		return out, err
	}
	anchor, err := anchorJSON(s.Anchor)
	if err != nil {
		return out, err
	}
	comp, err := compensationJSON(s.Compensation)
	if err != nil {
		return out, err
	}
	str := func(v string) sql.NullString { return sql.NullString{String: v, Valid: true} }
	out = rawEntry{
		str(s.ID), str(s.Key), str(s.RunID), str(s.BranchID), str(s.PlanDigest),
		str(s.Site), str(s.Flow), str(string(payload)), str(s.PayloadSHA256),
		str(string(s.State)), str(strconv.Itoa(s.Attempts)), str(s.OrderID),
		conf, str(arts), str(s.Error), str(s.CreatedAt), str(s.UpdatedAt), str(anchor),
		str(comp),
	}
	return out, nil
}

// args returns the entries column values of e in entryColumns order, for
// INSERT and UPDATE.
func (e *Entry) args() ([]any, error) {
	arts, err := artifactsJSON(e.Artifacts)
	if err != nil {
		return nil, err
	}
	anchor, err := anchorJSON(e.Anchor)
	if err != nil {
		return nil, err
	}
	comp, err := compensationJSON(e.Compensation)
	if err != nil {
		return nil, err
	}
	var conf any // NULL
	if len(e.Confirmation) > 0 {
		conf = string(e.Confirmation)
	}
	return []any{
		e.ID, e.Key, e.RunID, e.BranchID, e.PlanDigest, e.Site, e.Flow,
		string(e.Payload), e.PayloadSHA256, string(e.State), e.Attempts, e.OrderID,
		conf, arts, e.Error, formatTime(e.CreatedAt), formatTime(e.UpdatedAt), anchor, comp,
	}, nil
}

type scanner interface{ Scan(dest ...any) error }

// rawEntry is an entries row as stored, each column as text, in
// entryColumns order (attempts as its decimal text, a NULL confirmation as
// an invalid NullString).
type rawEntry [len(entryColumns)]sql.NullString

func scanRawEntry(s scanner) (rawEntry, error) {
	var r rawEntry
	dest := make([]any, len(r))
	for i := range r {
		dest[i] = &r[i]
	}
	return r, s.Scan(dest...)
}

// fieldError names the column of a row that does not parse.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// entry parses the row. It fails with a *fieldError naming the first column
// that does not parse.
func (r *rawEntry) entry() (Entry, error) {
	s := func(i int) string { return r[i].String }
	e := Entry{
		ID: s(0), Key: s(1), RunID: s(2), BranchID: s(3), PlanDigest: s(4),
		Site: s(5), Flow: s(6), Payload: json.RawMessage(s(7)), PayloadSHA256: s(8),
		State: State(s(9)), OrderID: s(11), Error: s(14),
	}
	var err error
	if e.Attempts, err = strconv.Atoi(s(10)); err != nil {
		return Entry{}, &fieldError{"attempts", err}
	}
	if r[12].Valid {
		e.Confirmation = json.RawMessage(r[12].String)
	}
	if arts := s(13); arts != "" && arts != "{}" {
		if err := json.Unmarshal([]byte(arts), &e.Artifacts); err != nil {
			return Entry{}, &fieldError{"artifacts", err}
		}
	}
	if e.CreatedAt, err = parseTime(s(15)); err != nil {
		return Entry{}, &fieldError{"created_at", err}
	}
	if e.UpdatedAt, err = parseTime(s(16)); err != nil {
		return Entry{}, &fieldError{"updated_at", err}
	}
	if e.Anchor, err = parseAnchor(s(17)); err != nil {
		return Entry{}, &fieldError{"anchor", err}
	}
	if e.Compensation, err = parseCompensation(s(18)); err != nil {
		return Entry{}, &fieldError{"compensation", err}
	}
	return e, nil
}

// scanEntry reads one entries row selected with entrySelect.
func scanEntry(s scanner) (Entry, error) {
	r, err := scanRawEntry(s)
	if err != nil {
		return Entry{}, err
	}
	e, err := r.entry()
	if err != nil {
		return Entry{}, fmt.Errorf("ledger: entry %s: %w", r[0].String, err)
	}
	return e, nil
}
