package scrub_test

import (
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// TestRecall: a Minter view notes the values it tokenizes (never a
// secret), TakeRecall turns them into hash -> token pairs that hold no
// value, and a scrubber with another key gives a recalled value the
// recorded token and any other value its own.
func TestRecall(t *testing.T) {
	capture := scrub.New(scrub.NewKey(), []string{"hunter2-secret"})
	m := capture.Minter()
	page := "Welcome member42@example.org, your password is hunter2-secret"
	scrubbed := m.Text(page)
	rec := m.TakeRecall()
	if len(rec) != 1 {
		t.Fatalf("recall %v: want the address only (a secret is never recalled)", rec)
	}
	for h, tok := range rec {
		if strings.Contains(h, "member") || !strings.Contains(scrubbed, tok) {
			t.Fatalf("recall entry %s -> %s (page scrubbed to %q)", h, tok, scrubbed)
		}
	}
	if again := m.TakeRecall(); again != nil {
		t.Errorf("a second take gave %v, want nothing new", again)
	}
	if capture.TakeRecall() != nil {
		t.Error("a plain scrubber keeps a recall")
	}

	r := &scrub.Recall{Salt: capture.RecallSalt(), Iterations: scrub.RecallIterations, Tokens: rec}
	replay := scrub.New(scrub.NewKey(), nil).WithRecall(r)
	made := "Welcome member42@example.org" // what the replayed page makes again
	if got, want := replay.Text(made), capture.Text(made); got != want {
		t.Errorf("replay with the recall scrubbed to %q, capture to %q", got, want)
	}
	other := "Welcome member43@example.org"
	if replay.Text(other) == capture.Text(other) {
		t.Error("a value the recall does not hold got the capture's token: the keys are alike")
	}
	if scrub.New(scrub.NewKey(), nil).Text(made) == capture.Text(made) {
		t.Error("without the recall another key gave the same tokens: the test shows nothing")
	}
}

// BenchmarkRecallLookup is what a replay pays the first time it meets a
// value with a recall at hand: one PBKDF2 hash (later meetings are
// cached).
func BenchmarkRecallLookup(b *testing.B) {
	r := &scrub.Recall{Salt: "00112233445566778899aabbccddeeff", Iterations: scrub.RecallIterations, Tokens: map[string]string{"x": "tok_0000000000000000"}}
	for i := 0; i < b.N; i++ {
		sc := scrub.New(scrub.NewKey(), nil).WithRecall(r)
		sc.Token("member" + string(rune('a'+i%26)) + strings.Repeat("x", i%7) + "@example.org")
	}
}
