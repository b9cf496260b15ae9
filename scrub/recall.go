package scrub

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"sync"
)

// Recall lets a replay give a personal value the token it got at capture
// without the run's key and without the value: for each value a capture
// tokenized in what it observed (a page's DOM and accessibility text), a
// slow salted hash of the value and its token. A replay that meets the
// value again (a page that makes the value itself, from its seeded
// randomness, say) finds its hash here and uses the recorded token, so
// the strict hashes that hold it reproduce anywhere.
//
// A recall holds no value, but it confirms a guess: whoever holds it can
// test a candidate value by hashing it. The hash is PBKDF2-SHA256 with
// Iterations rounds under a salt of the run's, so each guess costs that
// much and nothing carries over to another run. Secrets are never
// recalled: a replay asks for them again.
type Recall struct {
	// Salt is hex; Iterations the PBKDF2 rounds.
	Salt       string `json:"salt"`
	Iterations int    `json:"iterations"`
	// Tokens maps the hex hash of a value to its token.
	Tokens map[string]string `json:"tokens"`
}

// RecallIterations is the PBKDF2 round count of the recalls this build
// writes.
const RecallIterations = 20000

// recallStepLimit bounds the values one observation records.
const recallStepLimit = 200

// minted records the values a Minter view tokenized.
type minted struct {
	mu   sync.Mutex
	vals map[string]string // value -> token
}

// Minter returns a view of s that also notes every value it tokenizes
// (secrets aside), for TakeRecall. The view shares s's key, secrets and
// recall.
func (s *Scrubber) Minter() *Scrubber {
	c := *s
	c.mint = &minted{vals: map[string]string{}}
	return &c
}

// WithRecall returns a view of s that gives a value the recorded token
// when r holds its hash, and its own token otherwise.
func (s *Scrubber) WithRecall(r *Recall) *Scrubber {
	c := *s
	if r != nil && len(r.Tokens) > 0 && r.Iterations > 0 {
		if salt, err := hex.DecodeString(r.Salt); err == nil {
			c.recall = &recaller{r: r, salt: salt}
		}
	}
	return &c
}

// RecallSalt is the salt of the run's recalls: derived from the key (so
// every worker of the run agrees on it), it reveals nothing of the key.
func (s *Scrubber) RecallSalt() string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("multiverse/recall-salt"))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// TakeRecall returns the hash -> token pairs of the values the view
// tokenized since the last take (at most recallStepLimit), and forgets
// them. It is nil for a scrubber that is no Minter view.
func (s *Scrubber) TakeRecall() map[string]string {
	if s.mint == nil {
		return nil
	}
	s.mint.mu.Lock()
	vals := s.mint.vals
	s.mint.vals = map[string]string{}
	s.mint.mu.Unlock()
	if len(vals) == 0 {
		return nil
	}
	// The same values give the same recall, whichever a bound leaves out.
	names := make([]string, 0, len(vals))
	for v := range vals {
		names = append(names, v)
	}
	sort.Strings(names)
	salt, _ := hex.DecodeString(s.RecallSalt())
	out := make(map[string]string, min(len(names), recallStepLimit))
	for _, v := range names[:min(len(names), recallStepLimit)] {
		out[recallHash(salt, RecallIterations, v)] = vals[v]
	}
	return out
}

// note records a value the view tokenized.
func (s *Scrubber) note(v, tok string) {
	if s.mint == nil || s.isSecret(v) {
		return
	}
	s.mint.mu.Lock()
	if len(s.mint.vals) < 4*recallStepLimit {
		s.mint.vals[v] = tok
	}
	s.mint.mu.Unlock()
}

func (s *Scrubber) isSecret(v string) bool {
	for _, x := range s.secrets {
		if x == v {
			return true
		}
	}
	for _, x := range s.short {
		if x.value == v {
			return true
		}
	}
	return false
}

// recaller looks values up in a recall.
type recaller struct {
	r    *Recall
	salt []byte
	mu   sync.Mutex
	seen map[string]string // value -> its token, or "" when not recalled
}

func (rc *recaller) token(v string) (string, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if tok, ok := rc.seen[v]; ok {
		return tok, tok != ""
	}
	if rc.seen == nil {
		rc.seen = map[string]string{}
	}
	tok := rc.r.Tokens[recallHash(rc.salt, rc.r.Iterations, v)]
	rc.seen[v] = tok
	return tok, tok != ""
}

// hashCache keeps the process's recall hashes: the same values turn up in
// branch after branch of a run.
var hashCache = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

func recallHash(salt []byte, iter int, v string) string {
	key := string(salt) + "\x00" + strconv.Itoa(iter) + "\x00" + v
	hashCache.Lock()
	h, ok := hashCache.m[key]
	hashCache.Unlock()
	if ok {
		return h
	}
	b, err := pbkdf2.Key(sha256.New, v, salt, iter, 16)
	if err != nil {
		return ""
	}
	h = hex.EncodeToString(b)
	hashCache.Lock()
	if len(hashCache.m) > 10000 {
		hashCache.m = map[string]string{}
	}
	hashCache.m[key] = h
	hashCache.Unlock()
	return h
}
