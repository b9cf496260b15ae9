package sites

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestKnobsValidate(t *testing.T) {
	tests := []struct {
		name string
		k    Knobs
		want string // "" means valid
	}{
		{"zero", Knobs{}, ""},
		{"default", DefaultKnobs(), ""},
		{"everything on", Knobs{Latency: time.Second, ABVariant: "random", PriceFactor: 1.25, FailStatus: map[string]int{"/": 500, "/pricing": 503},
			LateBanner: true, Modal: true, LazyContent: true, PageRandom: true, TimerRace: true, Drift: "x", RedirectLoop: true, HangPaths: []string{"/checkout"}}, ""},
		{"negative latency", Knobs{Latency: -1}, "latency"},
		{"huge latency", Knobs{Latency: time.Hour}, "latency"},
		{"lower-case variant", Knobs{ABVariant: "b"}, "ab_variant"},
		{"unknown variant", Knobs{ABVariant: "C"}, "ab_variant"},
		{"negative price factor", Knobs{PriceFactor: -0.5}, "price_factor"},
		{"NaN price factor", Knobs{PriceFactor: math.NaN()}, "price_factor"},
		{"infinite price factor", Knobs{PriceFactor: math.Inf(1)}, "price_factor"},
		{"relative fail prefix", Knobs{FailStatus: map[string]int{"pricing": 500}}, "fail_status"},
		{"fail status 200", Knobs{FailStatus: map[string]int{"/": 200}}, "fail_status"},
		{"fail status 600", Knobs{FailStatus: map[string]int{"/": 600}}, "fail_status"},
		{"relative hang path", Knobs{HangPaths: []string{"checkout"}}, "hang_paths[0]"},
		{"huge drift", Knobs{Drift: strings.Repeat("d", 2000)}, "drift"},
		{"seats offset max", Knobs{SeatsOffset: MaxSeatsOffset}, ""},
		{"seats offset min", Knobs{SeatsOffset: -MaxSeatsOffset}, ""},
		{"seats offset too high", Knobs{SeatsOffset: MaxSeatsOffset + 1}, "seats_offset 500 is outside -499..499"},
		{"seats offset too low", Knobs{SeatsOffset: -MaxSeatsOffset - 1}, "seats_offset -500 is outside -499..499"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.k.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidKnobs) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalidKnobs mentioning %q", err, tc.want)
			}
			if _, err := NewVendor(VendorOptions{Knobs: tc.k}); !errors.Is(err, ErrInvalidKnobs) {
				t.Fatalf("NewVendor accepted invalid knobs: %v", err)
			}
			v := newVendor(t, Knobs{Drift: "before"})
			if err := v.SetKnobs(tc.k); !errors.Is(err, ErrInvalidKnobs) {
				t.Fatalf("SetKnobs: %v", err)
			}
			if v.Knobs().Drift != "before" {
				t.Fatal("invalid SetKnobs changed the knobs")
			}
		})
	}
}

func TestDefaultKnobs(t *testing.T) {
	want := Knobs{Latency: 100 * time.Millisecond}
	if got := DefaultKnobs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("DefaultKnobs = %+v", got)
	}
}

// Knobs and SetKnobs copy: callers cannot mutate the vendor's knobs.
func TestKnobsAreCopied(t *testing.T) {
	fail := map[string]int{"/x": 500}
	hang := []string{"/h"}
	v := newVendor(t, Knobs{FailStatus: fail, HangPaths: hang})
	fail["/"] = 500
	hang[0] = "/"
	got := v.Knobs()
	if len(got.FailStatus) != 1 || got.HangPaths[0] != "/h" {
		t.Fatalf("vendor shares caller's collections: %+v", got)
	}
	got.FailStatus["/"] = 500
	if _, ok := v.Knobs().FailStatus["/"]; ok {
		t.Fatal("Knobs returned the vendor's own map")
	}
	requireStatus(t, get(t, v, "/"), 200)
}

func TestKnobsJSON(t *testing.T) {
	k := Knobs{Latency: 250 * time.Millisecond, ABVariant: "B", PriceFactor: 1.1, FailStatus: map[string]int{"/z": 503, "/a": 500},
		LateBanner: true, Modal: true, LazyContent: true, PageRandom: true, TimerRace: true, Drift: "d", RedirectLoop: true, HangPaths: []string{"/h"}}
	b, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"latency":"250ms","ab_variant":"B","price_factor":1.1,"fail_status":{"/a":500,"/z":503},"late_banner":true,"modal":true,"lazy_content":true,"page_random":true,"timer_race":true,"drift":"d","redirect_loop":true,"hang_paths":["/h"]}`
	if string(b) != want {
		t.Fatalf("marshal =\n%s\nwant\n%s", b, want)
	}
	var back Knobs
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, k) {
		t.Fatalf("round trip = %+v", back)
	}
	zero, err := json.Marshal(Knobs{})
	if err != nil {
		t.Fatal(err)
	}
	requireContains(t, string(zero), `"latency":"0s"`, `"fail_status":{}`, `"hang_paths":[]`)
	requireLacks(t, string(zero), "seats_offset") // omitted while zero, as the newer knobs are
	off, err := json.Marshal(Knobs{SeatsOffset: 2})
	if err != nil {
		t.Fatal(err)
	}
	requireContains(t, string(off), `"seats_offset":2`)

	decode := []struct {
		in   string
		want Knobs
		err  string
	}{
		{in: `{}`, want: Knobs{}},
		{in: `{"latency":1000000}`, want: Knobs{Latency: time.Millisecond}},
		{in: `{"latency":"1.5s","modal":true}`, want: Knobs{Latency: 1500 * time.Millisecond, Modal: true}},
		{in: `{"latency":null}`, want: Knobs{}},
		{in: `{"seats_offset":-3}`, want: Knobs{SeatsOffset: -3}},
		{in: `{"seats_offset":"2"}`, err: "seats_offset"},
		{in: `{"latency":"soon"}`, err: "latency"},
		{in: `{"latency":1.5}`, err: "latency"},
		{in: `{"latencyMs":5}`, err: "unknown field"},
		{in: `{"modal":"yes"}`, err: "modal"},
		{in: `{} {}`, err: "after top-level value"},
	}
	for _, tc := range decode {
		t.Run(tc.in, func(t *testing.T) {
			var got Knobs
			err := json.Unmarshal([]byte(tc.in), &got)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestAdminKnobs(t *testing.T) {
	v := newVendor(t, Knobs{FailStatus: map[string]int{"/": 500}, HangPaths: []string{"/__admin/"}, Latency: time.Minute})

	// Admin is exempt from every chaos knob, even a global failure, a hang on
	// its own prefix and a minute of latency.
	rec := get(t, v, "/__admin/knobs")
	requireStatus(t, rec, 200)
	requireContains(t, rec.Body.String(), `"latency": "1m0s"`, `"/": 500`)

	tests := []struct {
		name   string
		method string
		body   string
		status int
		want   string
	}{
		{"bad json", "PUT", `{`, 400, "decode knobs"},
		{"unknown key", "PUT", `{"latency_ms":5}`, 400, "unknown field"},
		{"invalid variant", "PUT", `{"ab_variant":"C"}`, 400, "ab_variant"},
		{"negative latency", "PUT", `{"latency":"-1s"}`, 400, "latency"},
		{"post", "POST", `{}`, 405, "method_not_allowed"},
		{"replace", "PUT", `{"ab_variant":"B","price_factor":2,"drift":"v2"}`, 200, `"ab_variant": "B"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, v, call{method: tc.method, target: "/__admin/knobs", json: tc.body})
			requireStatus(t, rec, tc.status)
			requireContains(t, rec.Body.String(), tc.want)
		})
	}
	// PUT replaced everything: failure, hang and latency are gone.
	got := v.Knobs()
	if got.Latency != 0 || got.FailStatus != nil || got.HangPaths != nil || got.ABVariant != "B" || got.PriceFactor != 2 || got.Drift != "v2" {
		t.Fatalf("knobs after PUT = %+v", got)
	}
	// The next request sees the change.
	home := get(t, v, "/")
	requireStatus(t, home, 200)
	requireContains(t, home.Body.String(), "See plans", " v2</p>")
	requireContains(t, get(t, v, "/pricing").Body.String(), `data-price-cents="3000">$30</span>`)

	requireStatus(t, get(t, v, "/__admin/other"), http.StatusNotFound)
}
