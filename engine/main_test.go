package engine_test

import (
	"os"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/internal/porttrap"
)

// TestMain fails the package's tests when one reaches the examples'
// default site address, where a user's own site may listen.
func TestMain(m *testing.M) { os.Exit(porttrap.Run(m)) }
