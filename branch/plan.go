package branch

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// Plan is an ordered list of actions: a branch's immutable prefix.
type Plan []Action

// Extend returns a new plan with a appended; p is not modified.
func (p Plan) Extend(a Action) Plan {
	out := make(Plan, len(p), len(p)+1)
	copy(out, p)
	return append(out, a)
}

// digestAction is the canonical, geometry-free form of an action.
type digestAction struct {
	Kind   string        `json:"k"`
	Target *digestTarget `json:"t,omitempty"`
	URL    string        `json:"u,omitempty"`
	Value  string        `json:"v,omitempty"`
	Input  string        `json:"i,omitempty"`
	Dialog string        `json:"d,omitempty"`
	Tab    *int          `json:"tab,omitempty"`
}

type digestTarget struct {
	TestID    string `json:"testid,omitempty"`
	AriaLabel string `json:"aria,omitempty"`
	Role      string `json:"role,omitempty"`
	Name      string `json:"name,omitempty"`
	ID        string `json:"id,omitempty"`
	Field     string `json:"field,omitempty"`
	Text      string `json:"text,omitempty"`
	CSS       string `json:"css,omitempty"`
}

// Canonical returns the canonical JSON of the plan used for digests.
func (p Plan) Canonical() []byte { return p.canonical("") }

// canonical folds origin ("scheme://host:port") in URLs to "{origin}" so
// the same plan on the same site served at another address compares equal.
func (p Plan) canonical(origin string) []byte {
	out := make([]digestAction, len(p))
	for i, a := range p {
		u := a.URL
		if origin != "" && strings.HasPrefix(u, origin) {
			u = "{origin}" + u[len(origin):]
		}
		d := digestAction{Kind: a.Kind, URL: u, Value: a.Value, Input: a.Input, Dialog: a.Dialog, Tab: a.Tab}
		if t := a.Target; t != nil {
			d.Target = &digestTarget{TestID: t.TestID, AriaLabel: t.AriaLabel, Role: t.Role, Name: t.Name,
				ID: t.ID, Field: t.Field, Text: t.Text, CSS: t.CSS}
		}
		out[i] = d
	}
	b, err := json.Marshal(out)
	if err != nil { // only plain strings: cannot fail
		return nil
	}
	return b
}

// Digest returns the plan digest: hex sha256 over the task digest, a
// newline, and the canonical plan with the task's start origin folded.
func (p Plan) Digest(taskDigest, origin string) string {
	h := sha256.New()
	h.Write([]byte("multiverse/plan/v1\x00"))
	h.Write([]byte(taskDigest))
	h.Write([]byte("\n"))
	h.Write(p.canonical(origin))
	return hex.EncodeToString(h.Sum(nil))
}

// SeedFor derives a branch seed from the run seed and the plan digest.
func SeedFor(runSeed uint64, planDigest string) uint64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], runSeed)
	h := sha256.New()
	h.Write([]byte("multiverse/seed/v1\x00"))
	h.Write(b[:])
	h.Write([]byte(planDigest))
	return binary.BigEndian.Uint64(h.Sum(nil)[:8])
}
