package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// stores are the data dir's record stores.
type stores struct {
	dir       string // absolute
	artifacts *artifacts.FS
	events    *eventlog.Log
	ledger    *ledger.Ledger
}

// openStores creates the data dir (DefaultDataDir when dir is "") and
// opens its stores.
func openStores(ctx context.Context, dir string) (*stores, error) {
	if dir == "" {
		dir = DefaultDataDir
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: data dir %s: %v", ErrBadInput, dir, err)
	}
	store, err := artifacts.OpenFS(filepath.Join(dir, "artifacts"))
	if err != nil {
		return nil, fmt.Errorf("%w: artifact store: %v", ErrBadInput, err)
	}
	elog, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		return nil, fmt.Errorf("%w: event log: %v", ErrBadInput, err)
	}
	led, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		elog.Close()
		return nil, fmt.Errorf("%w: ledger: %v", ErrBadInput, err)
	}
	return &stores{dir: dir, artifacts: store, events: elog, ledger: led}, nil
}

func (s *stores) close() {
	s.ledger.Close()
	s.events.Close()
}
