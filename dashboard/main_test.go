package dashboard_test

import (
	"flag"
	"os"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/internal/porttrap"
)

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "dashboard-demo-")
	if err != nil {
		panic(err)
	}
	demoDir = dir
	code := porttrap.Run(m)
	closeUI()
	os.RemoveAll(dir)
	os.Exit(code)
}
