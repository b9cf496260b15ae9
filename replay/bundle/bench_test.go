package bundle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// benchBundle has 10 steps and 50 response bodies of 20 KiB of
// moderately compressible text.
func benchBundle(tb testing.TB) *Bundle {
	b := smallBundle(tb)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"team", "seats", "plan", "invoice", "total", "<div>", "</div>", "class=\"row\"", "€", "29.00", "checkout", "\n"}
	b.Network = nil
	b.Files = map[string][]byte{}
	b.Manifest.Plan = nil
	b.Steps = nil
	for i := 1; i <= 10; i++ {
		a := branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: fmt.Sprintf("button-%d", i)}}
		dom := []byte(fmt.Sprintf("html\n body\n  button[data-testid=button-%d]\n", i))
		b.Manifest.Plan = append(b.Manifest.Plan, a)
		b.Steps = append(b.Steps, Step{Index: i, Action: a, Status: StatusOK, DOMHash: sumHex(dom), AXHash: sumHex(nil)})
		b.Files[DOMPath(i)] = dom
	}
	b.Manifest.Steps = 10
	for i := 0; i < 50; i++ {
		var body bytes.Buffer
		for body.Len() < 20<<10 {
			body.WriteString(words[rng.IntN(len(words))])
			body.WriteByte(' ')
		}
		data := body.Bytes()[:20<<10]
		h := sumHex(data)
		b.Files[BodyPath(h)] = data
		b.Network = append(b.Network, Entry{Seq: i + 1, Step: i/5 + 1, Method: "GET", URL: fmt.Sprintf("%s/asset/%d", testOrigin, i),
			Status: 200, BodySHA256: h, BodySize: len(data), ResponseHeaders: map[string]string{"content-type": "text/html"}})
	}
	return b
}

func BenchmarkWriteRead(b *testing.B) {
	bb := benchBundle(b)
	var buf bytes.Buffer
	requireNoErr(b, Write(&buf, bb))
	b.SetBytes(int64(50 * 20 << 10))
	b.ReportMetric(float64(buf.Len()), "file-bytes")
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, bb); err != nil {
			b.Fatal(err)
		}
		if _, err := Read(bytes.NewReader(buf.Bytes()), Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	var buf bytes.Buffer
	requireNoErr(b, Write(&buf, benchBundle(b)))
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Validate(bytes.NewReader(buf.Bytes()), Limits{})
		if err != nil || !rep.OK() {
			b.Fatal(err, rep)
		}
	}
}
