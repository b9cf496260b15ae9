package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/multiverse-orchestrator/multiverse/audit"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// The stores of a data dir. Read and audit commands open them read-only:
// they never create a file or a schema, and work on a read-only copy.
const (
	ledgerFile = "ledger.db"
	eventsFile = "events.db"
)

// storePath returns the path of a data dir's store name, or the error a
// read or audit command reports when it is missing: bad input (exit 2)
// when the data dir does not exist or holds neither store, a failed audit
// (exit 7) when the other store is there, since a run creates both.
func storePath(dataDir, name string) (string, error) {
	p := filepath.Join(dataDir, name)
	st, err := os.Stat(dataDir)
	switch {
	case err != nil:
		return "", badInput("no %s in data dir %s: the directory does not exist (run a task first, or pass --data-dir)", name, dataDir)
	case !st.IsDir():
		return "", badInput("data dir %s is not a directory", dataDir)
	}
	if _, err := os.Stat(p); err == nil {
		return p, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	other := eventsFile
	if name == eventsFile {
		other = ledgerFile
	}
	if _, err := os.Stat(filepath.Join(dataDir, other)); err == nil {
		return "", fmt.Errorf("%w: %s is missing from data dir %s, which holds %s: a run creates both, so it was removed", orchestrator.ErrVerify, name, dataDir, other)
	}
	return "", badInput("no %s in data dir %s: not a Multiverse data dir (run a task first, or pass --data-dir)", name, dataDir)
}

// openLedgerRO opens a data dir's ledger read-only. A file that holds no
// ledger (emptied, replaced) is a failed audit (exit 7).
func openLedgerRO(ctx context.Context, dataDir string) (*ledger.Ledger, error) {
	p, err := storePath(dataDir, ledgerFile)
	if err != nil {
		return nil, err
	}
	l, err := ledger.OpenReadOnly(ctx, p)
	switch {
	case errors.Is(err, ledger.ErrNotLedger):
		return nil, fmt.Errorf("%w: %v: the commit ledger was emptied or replaced", orchestrator.ErrVerify, err)
	case errors.Is(err, ledger.ErrSchemaVersion):
		return nil, badInput("%v", err)
	case err != nil:
		return nil, fmt.Errorf("ledger %s: %w", p, err)
	}
	return l, nil
}

// openEventsRO opens a data dir's event log read-only. A file that holds
// no event log (emptied, replaced) is a failed audit (exit 7).
func openEventsRO(ctx context.Context, dataDir string) (*eventlog.Log, error) {
	p, err := storePath(dataDir, eventsFile)
	if err != nil {
		return nil, err
	}
	l, err := eventlog.OpenReadOnly(ctx, p)
	switch {
	case errors.Is(err, eventlog.ErrNotLog):
		return nil, fmt.Errorf("%w: %v: the event log was emptied or replaced", orchestrator.ErrVerify, err)
	case errors.Is(err, eventlog.ErrSchemaVersion):
		return nil, badInput("%v", err)
	case err != nil:
		return nil, fmt.Errorf("event log %s: %w", p, err)
	}
	return l, nil
}

// auditRun verifies a run's event log, its chain and summary, and its
// agreement with the ledger; a failure is a failed audit (exit 7) naming
// the run and event, or the ledger row.
func auditRun(ctx context.Context, l *eventlog.Log, dataDir, run string) error {
	if err := l.Verify(ctx, run); err != nil {
		if errors.Is(err, eventlog.ErrCorrupt) {
			return fmt.Errorf("%w: the event log of run %s does not verify: %v", orchestrator.ErrVerify, run, err)
		}
		return err
	}
	var ts []ledger.Transition
	if fileExists(filepath.Join(dataDir, ledgerFile)) {
		led, err := openLedgerRO(ctx, dataDir)
		if err != nil {
			return err
		}
		defer led.Close()
		if ts, err = led.Transitions(ctx); err != nil {
			return err
		}
	}
	if err := audit.Check(ctx, ts, l, run); err != nil {
		if errors.Is(err, audit.ErrMismatch) {
			return fmt.Errorf("%w: run %s and the commit ledger disagree: %v", orchestrator.ErrVerify, run, err)
		}
		return err
	}
	return nil
}
