package plancache

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecode: an entry file never panics the reader, a refusal wraps
// ErrInvalid, and an entry that reads is valid (Put accepts it) and
// re-encodes to JSON that reads back to the same entry.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"schema_version": 1, "task_digest": "d", "task": "buy", "site": "http://a.test", "run_id": "01R", "branch_id": "01B",
		"created": "2026-11-25T12:00:00Z", "steps": [{"action": {"kind": "navigate", "url": "http://a.test/pricing"}},
		{"action": {"kind": "click", "target": {"testid": "choose-team"}}, "expect": {"plan_is_team": true}}]}`))
	f.Add([]byte(`{"schema_version": 2}`))
	f.Add([]byte(`{"schema_version": 1, "task_digest": "d", "site": "s", "steps": [{"action": {"kind": "tap"}}]}`))
	f.Add([]byte(`{`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := decode("fuzz.json", data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("decode: %v does not wrap ErrInvalid", err)
			}
			return
		}
		if err := validate(e); err != nil {
			t.Fatalf("a decoded entry is invalid: %v", err)
		}
		once, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("encoding a decoded entry: %v", err)
		}
		again, err := decode("again.json", once)
		if err != nil {
			t.Fatalf("the re-encoded entry does not decode: %v\n%s", err, once)
		}
		twice, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("round trip changed the entry:\n%s\n%s", once, twice)
		}
	})
}
