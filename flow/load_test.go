package flow_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile/regfiletest"
)

// Load reads a regular flow file and refuses, at once, a FIFO (which
// used to block `play` forever), a device (/dev/zero used to be read
// until the process died), a directory and a file over MaxFileSize.
func TestLoadRefusesNonRegular(t *testing.T) {
	for _, c := range regfiletest.Hostile(t, "flow.yaml", flow.MaxFileSize) {
		t.Run(c.Name, func(t *testing.T) {
			regfiletest.Refuses(t, c, func(path string) error {
				_, err := flow.Load(context.Background(), path)
				return err
			})
		})
	}
	t.Run("regular", func(t *testing.T) {
		got, err := flow.Load(context.Background(), "testdata/good.yaml")
		if err != nil || len(got.Actions) != 6 {
			t.Fatalf("Load(good.yaml) = %+v, %v", got, err)
		}
	})
}

// FuzzParse: a flow file never panics the parser, a refusal wraps
// ErrInvalid, and a flow that parses is written (Write) to a file that
// parses and writes back to the same bytes.
func FuzzParse(f *testing.F) {
	for _, p := range []string{"testdata/good.yaml", "testdata/good.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	bad, _ := filepath.Glob("testdata/bad/*.yaml")
	for _, p := range bad {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("schema_version: 1\nactions: [{kind: navigate, url: 'http://a.test/'}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := flow.Parse("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, flow.ErrInvalid) {
				t.Fatalf("Parse: %v does not wrap ErrInvalid", err)
			}
			return
		}
		var once bytes.Buffer
		if err := flow.Write(&once, fl); err != nil {
			t.Fatalf("Write of a parsed flow: %v", err)
		}
		again, err := flow.Parse("written.yaml", once.Bytes())
		if err != nil {
			t.Fatalf("what Write wrote does not parse: %v\n%s", err, once.String())
		}
		var twice bytes.Buffer
		if err := flow.Write(&twice, again); err != nil {
			t.Fatal(err)
		}
		if once.String() != twice.String() {
			t.Fatalf("round trip changed the flow:\n%s\n---\n%s", once.String(), twice.String())
		}
	})
}
