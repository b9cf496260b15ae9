package dashboard_test

import (
	"flag"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "dashboard-demo-")
	if err != nil {
		panic(err)
	}
	demoDir = dir
	code := m.Run()
	closeUI()
	os.RemoveAll(dir)
	os.Exit(code)
}
