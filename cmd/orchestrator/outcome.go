package main

import (
	"context"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// checkOutcome audits an aborted or failed row against its submit
// transcript: one finalized without the site's refusal may stand for an
// order the site holds (commit.CheckOutcome).
func checkOutcome(ctx context.Context, store *artifacts.FS, e ledger.Entry) error {
	var transcript []byte
	if s := e.Artifacts["submit_transcript"]; s != "" {
		d, err := artifacts.ParseDigest(s)
		if err != nil {
			return nil // the artifact check names it
		}
		if transcript, err = store.Get(ctx, d); err != nil {
			return nil // the artifact check names it
		}
	}
	if err := commit.CheckOutcome(e, transcript); err != nil {
		return fmt.Errorf("outcome: %w", err)
	}
	return nil
}
