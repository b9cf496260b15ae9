package dashboard_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/dashboard"
)

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr, token string
		wantErr     error
	}{
		{"127.0.0.1:8620", "", nil},
		{"localhost:8620", "", nil},
		{"[::1]:8620", "", nil},
		{"0.0.0.0:8620", "", dashboard.ErrNonLoopback},
		{":8620", "", dashboard.ErrNonLoopback},
		{"192.168.1.4:8620", "", dashboard.ErrNonLoopback},
		{"0.0.0.0:8620", "s3cret", nil},
		{"127.0.0.1", "", errAny},
		{"127.0.0.1:", "", errAny},
	}
	for _, tc := range tests {
		t.Run(tc.addr+"/"+tc.token, func(t *testing.T) {
			err := dashboard.CheckAddr(tc.addr, tc.token)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("CheckAddr: %v", err)
			case tc.wantErr == errAny && err == nil, tc.wantErr != nil && tc.wantErr != errAny && !errors.Is(err, tc.wantErr):
				t.Fatalf("CheckAddr = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

var errAny = errors.New("any error")

func TestGuard(t *testing.T) {
	st := syntheticStores(t)
	open := serve(t, st)
	locked := serve(t, st, dashboard.WithToken("s3cret"))
	tests := []struct {
		name   string
		url    string
		method string
		header map[string]string
		want   int
	}{
		{"open", open.URL + "/api/runs", "GET", nil, 200},
		{"open page", open.URL + "/", "GET", nil, 200},
		{"rebinding", open.URL + "/api/runs", "GET", map[string]string{"Host": "evil.example:8620"}, 403},
		{"cross-origin post", open.URL + "/api/runs/x/branches/y/replay", "POST", map[string]string{"Origin": "http://evil.example"}, 403},
		{"no token", locked.URL + "/api/runs", "GET", nil, 401},
		{"no token page", locked.URL + "/", "GET", nil, 401},
		{"wrong token", locked.URL + "/api/runs", "GET", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"bearer", locked.URL + "/api/runs", "GET", map[string]string{"Authorization": "Bearer s3cret"}, 200},
		{"query", locked.URL + "/api/runs?token=s3cret", "GET", nil, 200},
		{"token, any host", locked.URL + "/api/runs?token=s3cret", "GET", map[string]string{"Host": "dash.internal:8620"}, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s %s: %d, want %d", tc.method, strings.TrimPrefix(tc.url, "http://"), resp.StatusCode, tc.want)
			}
		})
	}
}

func TestNewOptions(t *testing.T) {
	st := syntheticStores(t)
	for name, opt := range map[string]dashboard.Option{
		"empty token": dashboard.WithToken(""),
		"zero poll":   dashboard.WithPollInterval(0),
		"nil logger":  dashboard.WithLogger(nil),
	} {
		if _, err := dashboard.New(st, opt); !errors.Is(err, dashboard.ErrInvalidOption) {
			t.Errorf("%s: New = %v, want ErrInvalidOption", name, err)
		}
	}
	if _, err := dashboard.New(dashboard.Stores{}); !errors.Is(err, dashboard.ErrInvalidOption) {
		t.Errorf("New without records = %v, want ErrInvalidOption", err)
	}
}
