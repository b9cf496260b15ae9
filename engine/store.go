package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oklog/ulid/v2"

	"github.com/multiverse-orchestrator/multiverse/internal/atomicfile"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// maxReport bounds a stored report's size.
const maxReport = 16 << 20

// reportPath is where a run's report is stored in a data dir.
func reportPath(dataDir, id string) string { return filepath.Join(dataDir, "engine", id+".json") }

// store writes a report to the data dir; a report that cannot be written
// is logged, the run goes on.
func (e *Engine) store(r Report) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err == nil {
		err = atomicfile.Write(reportPath(e.dd, r.ID), append(b, '\n'), 0o644)
	}
	if err != nil {
		e.log.Warn("the run's report was not stored", "run", r.ID, "error", err)
	}
}

// Stored reads the report of the run id from dataDir/engine: what the
// engine that ran it last wrote. A report of a run the engine was still
// running when it stopped says running. ErrNotFound when none is stored;
// an id that is not a ULID is ErrNotFound too (it names no file).
func Stored(ctx context.Context, dataDir, id string) (Report, error) {
	if _, err := ulid.ParseStrict(id); err != nil {
		return Report{}, fmt.Errorf("%w: %q is not a run id", ErrNotFound, id)
	}
	b, err := regfile.ReadFile(ctx, reportPath(dataDir, id), maxReport)
	if errors.Is(err, os.ErrNotExist) {
		return Report{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Report{}, fmt.Errorf("engine: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return Report{}, fmt.Errorf("engine: %s: %w", reportPath(dataDir, id), err)
	}
	return r, nil
}
