package replay

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// TestProxyServesHTTPS: the replay proxy answers requests for an HTTPS
// origin that does not exist (its host resolves nowhere) from the
// recording, through a CONNECT tunnel whose certificate its per-replay
// authority made for the requested host; a request the bundle does not
// hold is refused and reported with its https:// URL; plain HTTP is served
// as before.
func TestProxyServesHTTPS(t *testing.T) {
	const origin = "https://shop.multiverse.test:8443"
	page, redirect := []byte("<p>recorded over TLS</p>"), "http://shop.multiverse.test:8080/"
	sum := sha256.Sum256(page)
	digest := hex.EncodeToString(sum[:])
	b := &bundle.Bundle{Manifest: bundle.Manifest{Origin: redirect[:len(redirect)-1]},
		Network: []bundle.Entry{
			{Seq: 1, Step: 1, Method: "GET", URL: redirect, Status: 301, ResponseHeaders: map[string]string{"Location": origin + "/"}},
			{Seq: 2, Step: 1, Method: "GET", URL: origin + "/", Status: 200,
				ResponseHeaders: map[string]string{"Content-Type": "text/html"}, BodySHA256: digest, BodySize: len(page)}},
		Files: map[string][]byte{bundle.BodyPath(digest): page}}
	srv := newServer(b, scrub.New(scrub.NewKey(), nil))
	addr, closeFn, err := srv.listen()
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	proxy, _ := url.Parse(addr)
	roots := x509.NewCertPool()
	roots.AddCert(srv.tunnels.ca.cert)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots}}}
	defer client.CloseIdleConnections()

	// The HTTP start URL redirects to the HTTPS origin, as recorded.
	resp, err := client.Get(redirect)
	if err != nil {
		t.Fatalf("GET %s through the replay proxy: %v", redirect, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != string(page) || resp.TLS == nil {
		t.Fatalf("GET %s: status %d, TLS %v, body %q; want the recorded page over TLS", redirect, resp.StatusCode, resp.TLS != nil, body)
	}
	if got := resp.TLS.PeerCertificates[0].DNSNames; len(got) != 1 || got[0] != "shop.multiverse.test" {
		t.Errorf("the tunnel's certificate names %v, want the requested host", got)
	}

	if resp, err := client.Get(origin + "/admin"); err == nil {
		resp.Body.Close()
		t.Fatalf("an unrecorded HTTPS request was answered: %d", resp.StatusCode)
	}
	served, unrecorded := srv.report()
	if served != 2 {
		t.Errorf("served %d responses, want 2", served)
	}
	// Go's client retries an idempotent request once on a closed
	// connection, so the refusal may be reported twice.
	if len(unrecorded) == 0 {
		t.Error("the unrecorded request was not reported")
	}
	for _, u := range unrecorded {
		if u.URL != origin+"/admin" || u.Method != "GET" {
			t.Errorf("unrecorded %+v, want GET %s/admin", u, origin)
		}
	}
}
