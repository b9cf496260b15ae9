package replay

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile/regfiletest"
)

// A swap's body file that is a FIFO, a device or a directory is refused
// at once (a FIFO with no writer used to block the rerun forever, and
// /dev/zero to fill memory until the process died); one over the limit
// is refused unread.
func TestParseSwapBodyNotRegular(t *testing.T) {
	for _, c := range regfiletest.Hostile(t, "body.bin", MaxSwapBodySize) {
		t.Run(c.Name, func(t *testing.T) {
			regfiletest.Refuses(t, c, func(path string) error {
				_, err := ParseSwap("3:GET /api/plans=" + path)
				if err != nil && !errors.Is(err, ErrSwap) {
					t.Errorf("ParseSwap: %v is not ErrSwap", err)
				}
				return err
			})
		})
	}
}

// FuzzParseSwapForm: the flag form never panics, and a form that parses
// is written back by String (with its status and file) to a form that
// parses to the same swap and file.
func FuzzParseSwapForm(f *testing.F) {
	for _, s := range []string{
		"3:GET /api/plans=plans.json",
		"1:* /pricing?plan=team=503:empty.html",
		"01JD3X@4:post http://127.0.0.1:8555/orders=body",
		"a@b@2:PUT /x=200:300:f",
		"", "=", "3:", "@3:GET /=x", "+3:GET /a=b", "3:GET api=x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sw, file, err := parseSwapForm(s)
		if err != nil {
			if !errors.Is(err, ErrSwap) {
				t.Fatalf("parseSwapForm(%q): %v does not wrap ErrSwap", s, err)
			}
			return
		}
		if file == "" || strings.Contains(file, "=") || sw.Step < 1 {
			t.Fatalf("parseSwapForm(%q) = %+v, file %q", s, sw, file)
		}
		again := sw.String() + "="
		if sw.Status != 0 {
			again += fmt.Sprintf("%03d:", sw.Status)
		}
		again += file
		sw2, file2, err := parseSwapForm(again)
		if err != nil {
			t.Fatalf("%q parsed, its written form %q does not: %v", s, again, err)
		}
		if sw2.BranchID != sw.BranchID || sw2.Step != sw.Step || sw2.Method != sw.Method || sw2.URL != sw.URL ||
			sw2.Status != sw.Status || file2 != file {
			t.Fatalf("%q: %+v %q; written as %q: %+v %q", s, sw, file, again, sw2, file2)
		}
	})
}
