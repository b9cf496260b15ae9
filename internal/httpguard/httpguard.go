// Package httpguard holds the checks the local HTTP servers (the
// dashboard, the warm engine) make before they answer: their token, a
// loopback Host
// when no token is required (so a page of another site cannot reach them
// through DNS rebinding), and the same origin for a request that is not a
// GET (so a page of another site cannot post to them).
package httpguard

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// Authorized reports whether r carries token: as Authorization: Bearer
// TOKEN, or, when query, as ?token=TOKEN (a page a person opens).
func Authorized(r *http.Request, token string, query bool) bool {
	var got string
	if query {
		got = r.URL.Query().Get("token")
	}
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		got = strings.TrimPrefix(h, "Bearer ")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// SameOrigin accepts a request without Origin (not a browser's
// cross-site form) or whose Origin names the host it was sent to.
func SameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	return o == "" || o == "http://"+r.Host || o == "https://"+r.Host
}

// LoopbackHost reports whether hostport (a Host header, or a listen
// address) names a loopback host: localhost or a loopback IP.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
