package scrub

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// KeyPath is where a run's scrubbing key is kept in its data dir
// (DATA_DIR/keys/RUN.key, mode 0600). Whoever holds it can check a
// token against a value; the records themselves never hold it.
func KeyPath(dataDir, runID string) string {
	return filepath.Join(dataDir, "keys", runID+".key")
}

// ReadKey reads a run's scrubbing key from its data dir: a replay or a
// rerun needs it to match the run's recorded tokens.
func ReadKey(dataDir, runID string) ([]byte, error) {
	key, err := regfile.ReadFile(context.Background(), KeyPath(dataDir, runID), 4<<10) // a key is 32 bytes
	if err != nil {
		return nil, fmt.Errorf("the scrubbing key of run %s: %w", runID, err)
	}
	return key, nil
}
