package sites

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// newVendor returns a vendor with zero latency and the given knobs.
func newVendor(t testing.TB, k Knobs) *Vendor {
	t.Helper()
	v, err := NewVendor(VendorOptions{Knobs: k})
	if err != nil {
		t.Fatalf("NewVendor: %v", err)
	}
	return v
}

// call is one request against a vendor.
type call struct {
	method, target string
	body           string
	form           url.Values // sets body and form content type
	json           string     // sets body and JSON content type
	header         map[string]string
	cookies        []*http.Cookie
}

// do runs c against v in process and returns the recorded response.
func do(t testing.TB, v http.Handler, c call) *httptest.ResponseRecorder {
	t.Helper()
	if c.method == "" {
		c.method = http.MethodGet
	}
	body, ctype := c.body, ""
	switch {
	case c.form != nil:
		body, ctype = c.form.Encode(), "application/x-www-form-urlencoded"
	case c.json != "":
		body, ctype = c.json, "application/json"
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(c.method, c.target, rd)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, val := range c.header {
		req.Header.Set(k, val)
	}
	for _, ck := range c.cookies {
		req.AddCookie(ck)
	}
	rec := httptest.NewRecorder()
	v.ServeHTTP(rec, req)
	return rec
}

// get is do for a plain GET.
func get(t testing.TB, v http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, v, call{target: target})
}

// requireStatus fails unless rec has status want.
func requireStatus(t testing.TB, rec *httptest.ResponseRecorder, want int) {
	t.Helper()
	if rec.Code != want {
		t.Fatalf("status = %d, want %d; body:\n%s", rec.Code, want, truncate(rec.Body.String()))
	}
}

// requireContains fails unless body holds every string in want.
func requireContains(t testing.TB, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Fatalf("body lacks %q; body:\n%s", w, truncate(body))
		}
	}
}

// requireLacks fails if body holds any string in bad.
func requireLacks(t testing.TB, body string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(body, b) {
			t.Fatalf("body unexpectedly has %q; body:\n%s", b, truncate(body))
		}
	}
}

func truncate(s string) string {
	if m := mainOf(s); m != "" {
		s = m
	}
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}

// mainOf returns the <main> element of a page, so assertions ignore the
// shared header and footer.
func mainOf(body string) string {
	i := strings.Index(body, "<main")
	j := strings.Index(body, "</main>")
	if i < 0 || j < i {
		return ""
	}
	return body[i:j]
}

// orderForm is a valid order form for Team, monthly, 10 seats, Germany
// (total $178.50 at list price).
func orderForm() url.Values {
	return url.Values{
		"plan": {"team"}, "billing": {"monthly"}, "seats": {"10"}, "country": {"DE"},
		"email": {"buyer@example.com"}, "vat_id": {""}, "total_cents": {"17850"},
	}
}

// orderJSONBody is orderForm as a JSON body.
const orderJSONBody = `{"plan":"team","billing":"monthly","seats":10,"country":"DE","email":"buyer@example.com","vat_id":"","total_cents":17850}`

// atOnce runs f(0) ... f(n-1) in n goroutines released together, and
// waits for them all: requests that race.
func atOnce(n int, f func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			f(i)
		}()
	}
	close(start)
	wg.Wait()
}
