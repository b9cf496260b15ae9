package browser

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
)

// hostResolverRules returns Chromium's flag that resolves each host of
// resolve to its address, "" when there are none.
func hostResolverRules(resolve map[string]string) string {
	if len(resolve) == 0 {
		return ""
	}
	hosts := make([]string, 0, len(resolve))
	for h := range resolve {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	rules := make([]string, len(hosts))
	for i, h := range hosts {
		rules[i] = "MAP " + h + " " + resolve[h]
	}
	return "--host-resolver-rules=" + strings.Join(rules, ",")
}

// ParseResolve reads "host=address" (like curl's --resolve) into m.
func ParseResolve(m map[string]string, s string) error {
	host, addr, ok := strings.Cut(s, "=")
	if !ok || host == "" || net.ParseIP(addr) == nil || strings.ContainsAny(host, " ,:/") {
		return fmt.Errorf("browser: resolve %q: want host=IP address, such as shop.example.test=127.0.0.1", s)
	}
	m[strings.ToLower(host)] = addr
	return nil
}

// HTTPClient returns a client for the Go side's own requests to the site
// (the start URL's preflight) that reaches hosts as the browser does:
// through Resolve, and accepting any certificate when ignoreHTTPSErrors,
// as the task's branches do.
func (o Options) HTTPClient(ignoreHTTPSErrors bool) *http.Client {
	if len(o.Resolve) == 0 && !ignoreHTTPSErrors {
		return http.DefaultClient
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if ignoreHTTPSErrors {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	if len(o.Resolve) > 0 {
		var d net.Dialer
		resolve := o.Resolve
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if host, port, err := net.SplitHostPort(addr); err == nil {
				if ip, ok := resolve[strings.ToLower(host)]; ok {
					addr = net.JoinHostPort(ip, port)
				}
			}
			return d.DialContext(ctx, network, addr)
		}
	}
	return &http.Client{Transport: tr}
}
