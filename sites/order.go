package sites

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Order is a placed order. All amounts are integer US cents for one billing
// period. Created is a sequence number (1, 2, …) in creation order, not wall
// time. ClientReference is the idempotency key the order was created with
// (the Idempotency-Key header, else the client_reference field), or "".
// PayloadSHA256 is the hex sha256 of the canonical payload (package doc,
// "Order endpoint"). Seats and the amounts are what was recorded: with
// [Knobs].SeatsOffset they differ from the request the hash was taken of.
//
// Cancelled is set by the first POST /orders/{id}/cancel, never unset;
// CancelReference is that request's idempotency key (the Idempotency-Key
// header, else the client_reference field), or "". Both are omitted from
// JSON while the order is active, so orders files written before they
// existed still load.
type Order struct {
	ID              string `json:"id"`
	ClientReference string `json:"client_reference"`
	Plan            string `json:"plan"`
	Billing         string `json:"billing"`
	Seats           int    `json:"seats"`
	Country         string `json:"country"`
	Email           string `json:"email"`
	VATID           string `json:"vat_id"`
	Currency        string `json:"currency"`
	UnitPriceCents  int64  `json:"unit_price_cents"`
	SubtotalCents   int64  `json:"subtotal_cents"`
	VATCents        int64  `json:"vat_cents"`
	TotalCents      int64  `json:"total_cents"`
	PayloadSHA256   string `json:"payload_sha256"`
	Created         int64  `json:"created"`
	Cancelled       bool   `json:"cancelled,omitempty"`
	CancelReference string `json:"cancel_reference,omitempty"`
}

// Limits of order fields.
const (
	minSeats        = 1
	maxSeats        = 500
	maxEmailLen     = 254
	maxVATIDLen     = 32
	maxKeyLen       = 255
	maxOrderBodyLen = 64 << 10
)

// Field error messages shown on the checkout form and returned by the API.
const (
	msgPlan    = "Choose a plan"
	msgBilling = "Choose monthly or annual billing"
	msgSeats   = "Seats must be between 1 and 500"
	msgCountry = "Choose a country"
	msgEmail   = "Enter a work email"
	msgVATID   = "Enter a VAT ID of at most 32 letters and digits"
	msgTotal   = "total_cents must be a non-negative integer"
)

// orderFields are the raw, undecoded values of an order form or JSON body.
type orderFields struct {
	Plan, Billing, Seats, Country, Email, VATID, TotalCents, ClientReference string
}

// fieldError names an invalid field and says how to fix it.
type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// orderRequest is a validated, normalised order payload.
type orderRequest struct {
	Plan, Billing string
	Seats         int
	Country       string
	Email, VATID  string
	TotalCents    int64
}

// orderFieldsFromForm reads order fields from form values.
func orderFieldsFromForm(v url.Values) orderFields {
	return orderFields{
		Plan: v.Get("plan"), Billing: v.Get("billing"), Seats: v.Get("seats"),
		Country: v.Get("country"), Email: v.Get("email"), VATID: v.Get("vat_id"),
		TotalCents: v.Get("total_cents"), ClientReference: v.Get("client_reference"),
	}
}

// orderJSON is the JSON order body. seats and total_cents may be numbers or
// numeric strings.
type orderJSON struct {
	Plan            *string         `json:"plan"`
	Billing         *string         `json:"billing"`
	Seats           json.RawMessage `json:"seats"`
	Country         *string         `json:"country"`
	Email           *string         `json:"email"`
	VATID           *string         `json:"vat_id"`
	TotalCents      json.RawMessage `json:"total_cents"`
	ClientReference *string         `json:"client_reference"`
}

// errOrderBody is wrapped by errors of orderFieldsFromJSON.
var errOrderBody = errors.New("sites: malformed order body")

// orderFieldsFromJSON decodes a JSON order body into raw fields. Unknown keys
// are ignored; a body that is not a single JSON object is an error wrapping
// errOrderBody.
func orderFieldsFromJSON(body []byte) (orderFields, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var j orderJSON
	if err := dec.Decode(&j); err != nil {
		return orderFields{}, fmt.Errorf("%w: %w", errOrderBody, err)
	}
	if dec.More() {
		return orderFields{}, fmt.Errorf("%w: trailing data after the JSON object", errOrderBody)
	}
	seats, err := rawScalar(j.Seats)
	if err != nil {
		return orderFields{}, fmt.Errorf("%w: seats: %w", errOrderBody, err)
	}
	total, err := rawScalar(j.TotalCents)
	if err != nil {
		return orderFields{}, fmt.Errorf("%w: total_cents: %w", errOrderBody, err)
	}
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return orderFields{
		Plan: s(j.Plan), Billing: s(j.Billing), Seats: seats, Country: s(j.Country),
		Email: s(j.Email), VATID: s(j.VATID), TotalCents: total, ClientReference: s(j.ClientReference),
	}, nil
}

// rawScalar returns the text of a JSON number or string ("" for null/absent).
func rawScalar(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", errors.New("must be a number or a string")
	}
	return n.String(), nil
}

// parseOrderFields validates and normalises raw fields: plan and billing are
// lower-cased, country and VAT id upper-cased, spaces removed from the VAT id,
// surrounding space trimmed everywhere. needTotal makes total_cents required.
// It returns every field error found, in form order.
func parseOrderFields(f orderFields, needTotal bool) (orderRequest, []fieldError) {
	var errs []fieldError
	add := func(field, msg string) { errs = append(errs, fieldError{Field: field, Message: msg}) }
	req := orderRequest{
		Plan:    strings.ToLower(strings.TrimSpace(f.Plan)),
		Billing: strings.ToLower(strings.TrimSpace(f.Billing)),
		Country: strings.ToUpper(strings.TrimSpace(f.Country)),
		Email:   strings.TrimSpace(f.Email),
		VATID:   normalizeVATID(f.VATID),
	}
	if p, ok := findPlan(req.Plan); !ok || !p.SelfServe {
		add("plan", msgPlan)
	}
	if !validBilling(req.Billing) {
		add("billing", msgBilling)
	}
	seats, err := strconv.Atoi(strings.TrimSpace(f.Seats))
	if err != nil || seats < minSeats || seats > maxSeats {
		add("seats", msgSeats)
	}
	req.Seats = seats
	if _, ok := findCountry(req.Country); !ok {
		add("country", msgCountry)
	}
	if !validEmail(req.Email) {
		add("email", msgEmail)
	}
	if !validVATID(req.VATID) {
		add("vat_id", msgVATID)
	}
	if needTotal {
		t, err := strconv.ParseInt(strings.TrimSpace(f.TotalCents), 10, 64)
		if err != nil || t < 0 {
			add("total_cents", msgTotal)
		}
		req.TotalCents = t
	}
	return req, errs
}

// normalizeVATID upper-cases s and drops spaces, dots and dashes.
func normalizeVATID(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '.', '-', '\t':
			return -1
		}
		return unicode.ToUpper(r)
	}, strings.TrimSpace(s))
}

// validEmail is the demo's deliberately loose check: an "@", no controls.
func validEmail(s string) bool {
	return strings.Contains(s, "@") && len(s) <= maxEmailLen && printable(s)
}

// validVATID accepts "" or up to 32 ASCII letters and digits.
func validVATID(s string) bool {
	if len(s) > maxVATIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// validKey reports whether an idempotency key is acceptable: 1..255 bytes of
// printable ASCII.
func validKey(k string) bool {
	if k == "" || len(k) > maxKeyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// canonicalPayload is the hashed form of an order payload; its fields are
// declared in key order so the encoding has sorted keys.
type canonicalPayload struct {
	Billing    string `json:"billing"`
	Country    string `json:"country"`
	Email      string `json:"email"`
	Plan       string `json:"plan"`
	Seats      int    `json:"seats"`
	TotalCents int64  `json:"total_cents"`
	VATID      string `json:"vat_id"`
}

// canonical returns the canonical payload bytes: compact JSON, keys sorted,
// no HTML escaping, no trailing newline. Example:
// {"billing":"monthly","country":"DE","email":"a@b.example","plan":"team","seats":10,"total_cents":17850,"vat_id":""}
func (r orderRequest) canonical() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Encoding a struct of strings and integers cannot fail.
	_ = enc.Encode(canonicalPayload{
		Billing: r.Billing, Country: r.Country, Email: r.Email, Plan: r.Plan,
		Seats: r.Seats, TotalCents: r.TotalCents, VATID: r.VATID,
	})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// payloadSHA256 is the hex sha256 of the canonical payload.
func (r orderRequest) payloadSHA256() string {
	sum := sha256.Sum256(r.canonical())
	return hex.EncodeToString(sum[:])
}

// hiddenFields returns r as the review page's hidden order fields, in form
// order.
func (r orderRequest) hiddenFields() []hiddenField {
	return []hiddenField{
		{"plan", r.Plan}, {"billing", r.Billing}, {"seats", strconv.Itoa(r.Seats)},
		{"country", r.Country}, {"email", r.Email}, {"vat_id", r.VATID},
		{"total_cents", strconv.FormatInt(r.TotalCents, 10)},
	}
}

// query returns r as a query string in form order (plan, billing, seats,
// country, email, vat_id), for the "Edit order" and "review again" links.
func (r orderRequest) query() string {
	pairs := [][2]string{
		{"plan", r.Plan}, {"billing", r.Billing}, {"seats", strconv.Itoa(r.Seats)},
		{"country", r.Country}, {"email", r.Email}, {"vat_id", r.VATID},
	}
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p[0])
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p[1]))
	}
	return b.String()
}

// request returns the payload an order was recorded with (with
// Knobs.SeatsOffset, not the seats that were requested).
func (o Order) request() orderRequest {
	return orderRequest{
		Plan: o.Plan, Billing: o.Billing, Seats: o.Seats, Country: o.Country,
		Email: o.Email, VATID: o.VATID, TotalCents: o.TotalCents,
	}
}
