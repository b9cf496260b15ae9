package bundle_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

func Example() {
	body := []byte("<h1>Pricing</h1>")
	dom := []byte("html\n body\n  h1 \"Pricing\"\n")
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	nav := branch.Action{Kind: branch.KindNavigate, URL: "http://127.0.0.1:8555/pricing"}
	b := &bundle.Bundle{
		Manifest: bundle.Manifest{
			Schema: bundle.Schema, Kind: bundle.KindBranch, RunID: "01HZX3K5V7Q8R9S0T1U2V3W4X5",
			Origin: "http://127.0.0.1:8555", Plan: []branch.Action{nav}, Steps: 1,
			Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		},
		Steps: []bundle.Step{{Index: 1, Action: nav, Status: bundle.StatusOK, DOMHash: sum(dom), AXHash: sum(nil)}},
		Network: []bundle.Entry{{Seq: 1, Step: 1, Method: "GET", URL: "http://127.0.0.1:8555/pricing?b=2&a=1",
			Status: 200, BodySHA256: sum(body), BodySize: len(body)}},
		Files: map[string][]byte{bundle.BodyPath(sum(body)): body, bundle.DOMPath(1): dom},
	}
	var file bytes.Buffer
	if err := bundle.Write(&file, b); err != nil {
		fmt.Println(err)
		return
	}
	rep, err := bundle.Validate(bytes.NewReader(file.Bytes()), bundle.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ok:", rep.OK(), "files:", rep.Files, "steps:", rep.Steps)

	got, err := bundle.Read(bytes.NewReader(file.Bytes()), bundle.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for key, e := range got.Index() {
		fmt.Println(key, "->", e.Status)
	}
	// Output:
	// ok: true files: 8 steps: 1
	// GET {origin}/pricing?a=1&b=2 - #0 -> 200
}
