package sites

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFailStatus(t *testing.T) {
	v := newVendor(t, Knobs{FailStatus: map[string]int{"/": 500, "/pricing": 503, "/pricing-x": 502}})
	tests := []struct {
		path   string
		status int
	}{
		{"/", 500},
		{"/docs", 500},
		{"/api/orders", 500},
		{"/pricing", 503},
		{"/pricing?billing=monthly", 503},
		{"/pricing-loop", 503},
		{"/pricing-x/y", 502},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			rec := get(t, v, tc.path)
			requireStatus(t, rec, tc.status)
			requireContains(t, rec.Body.String(), "<h1>Something went wrong</h1>", "status "+strconv.Itoa(tc.status)+".")
		})
	}
	// Failures apply before routing: even a POST to the order endpoint fails
	// and creates nothing.
	requireStatus(t, do(t, v, call{method: "POST", target: "/api/orders", json: orderJSONBody}), 500)
	if len(v.Orders()) != 0 {
		t.Fatal("a failed request created an order")
	}
}

func TestRedirectLoop(t *testing.T) {
	v := newVendor(t, Knobs{RedirectLoop: true})
	rec := get(t, v, "/pricing?billing=monthly")
	requireStatus(t, rec, http.StatusFound)
	if loc := rec.Header().Get("Location"); loc != "/pricing-loop?billing=monthly" {
		t.Fatalf("Location = %q", loc)
	}
	rec = get(t, v, "/pricing-loop")
	requireStatus(t, rec, http.StatusFound)
	if loc := rec.Header().Get("Location"); loc != "/pricing" {
		t.Fatalf("Location = %q", loc)
	}
	// A real client gives up after its redirect limit.
	srv := httptest.NewServer(v)
	defer srv.Close()
	hops := 0
	client := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		hops++
		if len(via) >= 10 {
			return errors.New("too many redirects")
		}
		return nil
	}}
	resp, err := client.Get(srv.URL + "/pricing")
	if err == nil {
		resp.Body.Close()
		t.Fatal("redirect loop ended")
	}
	if hops != 10 {
		t.Fatalf("followed %d redirects, want 10", hops)
	}
}

func TestHangPaths(t *testing.T) {
	v := newVendor(t, Knobs{HangPaths: []string{"/checkout"}})
	srv := httptest.NewServer(v)
	defer srv.Close()

	// Other paths answer.
	resp, err := http.Get(srv.URL + "/pricing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/pricing: %d", resp.StatusCode)
	}

	// A hanging path returns when the client gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/checkout?plan=team", nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err = http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("hang path answered %d", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("client did not give up promptly")
	}

	// In process, the handler itself returns once the request context ends.
	hctx, hcancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		v.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/checkout", nil).WithContext(hctx))
	}()
	select {
	case <-done:
		t.Fatal("hang path returned before cancellation")
	case <-time.After(20 * time.Millisecond):
	}
	hcancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("handler still hangs after the request context ended")
	}
}

func TestLatency(t *testing.T) {
	const lat = 30 * time.Millisecond
	v := newVendor(t, Knobs{Latency: lat})
	for _, path := range []string{"/", "/api/plans", "/nope"} {
		start := time.Now()
		requireStatus(t, get(t, v, path), map[string]int{"/": 200, "/api/plans": 200, "/nope": 404}[path])
		if el := time.Since(start); el < lat {
			t.Fatalf("%s answered after %s, want >= %s", path, el, lat)
		}
	}
	// Admin is not delayed; a cancelled request stops waiting.
	if err := v.SetKnobs(Knobs{Latency: MaxLatency}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	requireStatus(t, get(t, v, "/__admin/knobs"), 200)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	rec := httptest.NewRecorder()
	v.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil).WithContext(ctx))
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("latency ignored cancellation: %s", el)
	}
	if rec.Body.Len() != 0 {
		t.Fatal("a cancelled request got a body")
	}
}

func TestVariantSelection(t *testing.T) {
	tests := []struct {
		name       string
		knob       string
		cookie     string
		want       string
		wantCookie bool
	}{
		{"default is A", "", "", "A", false},
		{"knob A", "A", "", "A", false},
		{"knob B", "B", "", "B", false},
		{"cookie B beats knob A", "A", "B", "B", false},
		{"cookie A beats knob B", "B", "A", "A", false},
		{"cookie beats random", "random", "B", "B", false},
		{"bad cookie ignored", "B", "Z", "B", false},
		{"random sets cookie", "random", "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVendor(t, Knobs{ABVariant: tc.knob})
			c := call{target: "/"}
			if tc.cookie != "" {
				c.cookies = []*http.Cookie{{Name: "mv_ab", Value: tc.cookie}}
			}
			rec := do(t, v, c)
			set := rec.Result().Cookies()
			if tc.wantCookie != (len(set) == 1) {
				t.Fatalf("Set-Cookie = %v, want cookie: %v", set, tc.wantCookie)
			}
			want := tc.want
			if tc.wantCookie {
				ck := set[0]
				if ck.Name != "mv_ab" || ck.Path != "/" || (ck.Value != "A" && ck.Value != "B") {
					t.Fatalf("cookie = %+v", ck)
				}
				want = ck.Value
				// The pinned cookie keeps the variant on the next visit.
				again := do(t, v, call{target: "/", cookies: []*http.Cookie{ck}})
				if len(again.Result().Cookies()) != 0 || !strings.Contains(again.Body.String(), `data-variant="`+want+`"`) {
					t.Fatal("pinned variant not honoured")
				}
			}
			requireContains(t, rec.Body.String(), `<body data-variant="`+want+`">`)
		})
	}
	// Random really draws both variants.
	v := newVendor(t, Knobs{ABVariant: "random"})
	seen := map[string]bool{}
	for i := 0; i < 200 && len(seen) < 2; i++ {
		seen[get(t, v, "/").Result().Cookies()[0].Value] = true
	}
	if !seen["A"] || !seen["B"] {
		t.Fatalf("random drew only %v", seen)
	}
}

func TestPageScripts(t *testing.T) {
	tests := []struct {
		name   string
		knobs  Knobs
		cookie *http.Cookie
		want   []string
		lacks  []string
	}{
		{name: "plain", knobs: Knobs{}, lacks: []string{"setTimeout", "Math.random", "Date.now", "performance.now", "fetch(", "Accept cookies"}},
		{name: "late banner", knobs: Knobs{LateBanner: true}, want: []string{"}, 400);", "Accept cookies", "var modal =  false ;", "mv_consent=1"}},
		{name: "modal", knobs: Knobs{Modal: true}, want: []string{"var modal =  true ;", "cookie-modal", `"aria-modal"`}},
		{name: "consented", knobs: Knobs{Modal: true}, cookie: &http.Cookie{Name: "mv_consent", Value: "1"}, lacks: []string{"Accept cookies"}},
		{name: "page random", knobs: Knobs{PageRandom: true}, want: []string{"Math.random()", "Date.now()", "performance.now()", `id="session-id"`}},
		{name: "timer race", knobs: Knobs{TimerRace: true}, want: []string{`id="tip-of-the-day"`, "Tip of the day", "Math.floor(Math.random() * 300)"}},
		{name: "drift", knobs: Knobs{Drift: "<new copy>"}, want: []string{"servers. &lt;new copy&gt;</p>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVendor(t, tc.knobs)
			c := call{target: "/"}
			if tc.cookie != nil {
				c.cookies = []*http.Cookie{tc.cookie}
			}
			body := do(t, v, c).Body.String()
			requireContains(t, body, tc.want...)
			requireLacks(t, body, tc.lacks...)
			requireLacks(t, body, "crypto")
		})
	}
}

func TestLazyContent(t *testing.T) {
	v := newVendor(t, Knobs{LazyContent: true, ABVariant: "B"})
	body := get(t, v, "/pricing").Body.String()
	requireContains(t, body, `data-src="/api/plans?billing=monthly"`, "fetch(", "Loading plans")
	requireLacks(t, body, `data-testid="plan-team"`, "Choose Team")
	api := get(t, v, "/api/plans?billing=monthly").Body.String()
	e, b, tm := strings.Index(api, `"id": "enterprise"`), strings.Index(api, `"id": "business"`), strings.Index(api, `"id": "team"`)
	if !(e >= 0 && e < b && b < tm) {
		t.Fatalf("API plans not in variant B order:\n%s", api)
	}
	requireContains(t, api, `"cta": "Choose Team"`, `"cta_test_id": "choose-team"`, `"price": "$15"`)
}
