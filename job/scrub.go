package job

import (
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Scrubber returns the scrubber of the spec's sessions: the run's key, the
// secret inputs' values, every header value and the storage state's
// values, each resolved in this process. Explorer and committer scrub
// with it alike.
func (s *Spec) Scrubber() *scrub.Scrubber { return scrub.New(s.ScrubKey, s.secrets()) }

// ScrubberWith is Scrubber with more secrets: the values of a session
// state a scripted login produced.
func (s *Spec) ScrubberWith(extra []string) *scrub.Scrubber {
	if len(extra) == 0 {
		return s.Scrubber()
	}
	return scrub.New(s.ScrubKey, append(s.secrets(), extra...))
}

// ScrubIntent scrubs the intent values read at the commit boundary (and
// the extract fields of a task without commit) with the page's personal
// field values (browser.Snapshot.PII): the values a branch reports and
// those the committer compares with them at preflight (and records in
// snapshot_changed and commit_end) come from this one method.
func (s *Spec) ScrubIntent(raw map[string]string, pii []string) map[string]string {
	sc := s.Scrubber()
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		out[k] = sc.TextWith(v, pii)
	}
	return out
}

// secrets resolves the spec's secret values: secret inputs, header values
// and the storage state's values. A value that does not resolve here is
// left out.
func (s *Spec) secrets() []string {
	secrets := s.InputSecrets()
	if in := s.StorageState; in != nil {
		if st, err := task.ResolveStorageState(*in); err == nil {
			secrets = append(secrets, st.Secrets()...)
		}
	}
	return secrets
}

// InputSecrets resolves the values of the secret inputs and of the
// headers, leaving out any that does not resolve. A session that resolves
// the storage state itself adds that state's values.
func (s *Spec) InputSecrets() []string {
	var secrets []string
	for _, in := range s.Inputs {
		if in.Secret() {
			if v, err := in.Resolve(); err == nil {
				secrets = append(secrets, v)
			}
		}
	}
	for _, h := range s.Env.Headers {
		if v, err := h.Resolve(); err == nil {
			secrets = append(secrets, v)
		}
	}
	return secrets
}
