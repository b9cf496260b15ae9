package replay_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// testHost is the demo site's name in the HTTPS tests; Chromium's host
// resolver maps it to loopback, nothing else resolves it.
const testHost = "shop.multiverse.test"

// testCertificate makes a certificate authority and a certificate it
// signs for testHost: real TLS that Chromium does not trust by itself.
func testCertificate(t *testing.T) tls.Certificate {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Multiverse test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: testHost}, DNSNames: []string{testHost},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der, caDER}, PrivateKey: key}
}

// startHTTPSSite serves the demo site over TLS as https://testHost:PORT
// and, on another port, plain HTTP that redirects every request there. It
// returns both base URLs (by name, not address) and a stop function.
func startHTTPSSite(t *testing.T, k sites.Knobs) (httpsURL, httpURL string, stop func()) {
	t.Helper()
	v, err := sites.NewVendor(sites.VendorOptions{Knobs: k})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(v)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{testCertificate(t)}}
	ts.StartTLS()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	httpsURL = "https://" + testHost + ":" + port
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, httpsURL+r.URL.RequestURI(), http.StatusMovedPermanently)
	}))
	_, port, _ = net.SplitHostPort(redir.Listener.Addr().String())
	httpURL = "http://" + testHost + ":" + port
	stop = func() { redir.Close(); ts.Close() }
	t.Cleanup(stop)
	return httpsURL, httpURL, stop
}

// TestHTTPSExploreCommitReplay: the demo site served over TLS under a
// name only the run's Chromium resolves, reached through a plain-HTTP
// start URL that redirects to it, is explored and committed (the task
// accepts the site's internal certificate authority), and the commit
// bundle and the winner's branch bundle replay strictly at RSR 1.0 from
// the bundles alone, with the site stopped, in a browser that neither
// resolves the name nor trusts the site's authority.
func TestHTTPSExploreCommitReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	k := sites.DefaultKnobs()
	k.Latency = 5 * time.Millisecond
	httpsURL, httpURL, stop := startHTTPSSite(t, k)
	tk := demoTask(t, httpURL, func(src string) string {
		return strings.Replace(src, "budgets:\n", "environment:\n  ignore_https_errors: true\n\nbudgets:\n", 1)
	})
	if !tk.Environment.IgnoreHTTPSErrors {
		t.Fatal("environment.ignore_https_errors did not make it into the task")
	}
	dir := t.TempDir()
	ctx := context.Background()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 4, NoScreenshots: true,
		Browser: browser.Options{Resolve: map[string]string{testHost: "127.0.0.1"}}})
	if err != nil {
		if sum != nil {
			t.Fatalf("run: %v (pruned %v, held %+v)", err, sum.Pruned, sum.Held)
		}
		t.Fatalf("run: %v", err)
	}
	if sum.Winner == nil {
		t.Fatal("no winner")
	}
	portable := t.TempDir()
	src, closeSrc := source(t, dir)
	b, err := replay.Build(ctx, src, sum.RunID, sum.Winner.BranchID, bundle.KindBranch)
	if err != nil {
		t.Fatalf("bundle the winner: %v", err)
	}
	if err := bundle.WriteFile(filepath.Join(portable, "winner.bundle"), b); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sum.Paths.Bundle)
	if err != nil {
		t.Fatalf("the run sealed no commit bundle: %v", err)
	}
	if err := os.WriteFile(filepath.Join(portable, "commit.bundle"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	closeSrc()
	stop()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"commit", "winner"} {
		b, err := bundle.ReadFile(filepath.Join(portable, name+".bundle"), bundle.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		https := 0
		for _, e := range b.Network {
			if strings.HasPrefix(e.URL, httpsURL+"/") && e.Status == 200 {
				https++
			}
		}
		if https == 0 || b.Network[0].URL != httpURL+"/" || b.Network[0].Status != http.StatusMovedPermanently {
			t.Fatalf("bundle %s: want the redirect from %s first and responses from %s, have %d HTTPS responses, first %s %d",
				name, httpURL, httpsURL, https, b.Network[0].URL, b.Network[0].Status)
		}
		rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{})
		if err != nil || rep.RSR != 1 {
			t.Errorf("bundle %s: RSR %.2f, %v\n%s", name, repRSR(rep), err, repDiff(rep))
			continue
		}
		if len(rep.Unrecorded) > 0 || rep.Served == 0 {
			t.Errorf("bundle %s: served %d, unrecorded %v", name, rep.Served, rep.Unrecorded)
		}
	}
}
