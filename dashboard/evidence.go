package dashboard

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/multiverse-orchestrator/multiverse/commit/evidence"
)

// handleEvidence serves one evidence document of a ledger entry to whoever
// may read the dashboard (the token holder, or loopback without a token):
// a sealed document decrypted with the data dir's evidence key and
// checked against the plaintext digest the ledger records, as `orchestrator
// ledger evidence ENTRY NAME` writes it. It is served as an attachment
// under a sandbox, never rendered as the dashboard's own page.
func (s *Server) handleEvidence(w http.ResponseWriter, r *http.Request) {
	st := s.stores
	if st.Ledger == nil || st.Artifacts == nil {
		s.fail(w, r, fmt.Errorf("%w: no ledger or artifact store", ErrNotFound))
		return
	}
	ctx := r.Context()
	e, err := st.Ledger.GetByID(ctx, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, fmt.Errorf("%w: ledger entry %s: %v", ErrNotFound, r.PathValue("id"), err))
		return
	}
	key, err := evidence.LoadKey(st.DataDir)
	if err != nil && !errors.Is(err, evidence.ErrNoKey) {
		s.fail(w, r, err)
		return
	}
	name := r.PathValue("name")
	data, err := evidence.Read(ctx, st.Artifacts, key, e.Artifacts, name)
	switch {
	case errors.Is(err, evidence.ErrNoEvidence), errors.Is(err, evidence.ErrNoKey):
		s.fail(w, r, fmt.Errorf("%w: entry %s: %v", ErrNotFound, e.ID, err))
		return
	case err != nil:
		s.fail(w, r, err)
		return
	}
	h := sandboxed(w, data)
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", e.ID+"-"+name))
	h.Set("Cache-Control", "no-store")
	w.Write(data)
}
