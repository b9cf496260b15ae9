package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// pkgPrefixes are the prefixes Multiverse's packages start their errors
// with. Wrapped errors repeat them ("bus: embedded server failed to
// start: bus: cannot listen on the address"); errorLine keeps the first.
var pkgPrefixes = map[string]bool{
	"orchestrator": true, "bus": true, "eventlog": true, "ledger": true, "bundle": true, "replay": true,
	"browser": true, "task": true, "commit": true, "artifacts": true, "evidence": true, "audit": true,
	"payload": true, "planner": true, "worker": true, "job": true, "sites": true, "scrub": true,
}

// errorLine is what the CLI prints for a failed command: one line that
// starts with "orchestrator: " once, names each package once however
// often its errors were wrapped, and ends with the next step when there
// is one.
func errorLine(err error) string {
	segs := strings.Split(oneLine(err.Error()), ": ")
	seen := map[string]bool{"orchestrator": true}
	kept := segs[:0]
	for _, s := range segs {
		if pkgPrefixes[s] {
			if seen[s] {
				continue
			}
			seen[s] = true
		}
		kept = append(kept, s)
	}
	line := "orchestrator: " + strings.Join(kept, ": ")
	if next := nextStep(err); next != "" {
		line += ": " + next
	}
	return line
}

// nextStep names what to do about err, or "" when the message says it
// already.
func nextStep(err error) string {
	var site *orchestrator.SiteError
	if errors.As(err, &site) && site.Status == "" {
		return siteHint(site.URL)
	}
	return ""
}

// siteHint tells how to get a site answering at u: the demo site when u
// is on this machine, else a check of the address.
func siteHint(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		return "check the task's start_url (or pass --start-url)"
	}
	host := pu.Hostname()
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" {
		return "check that the site is up and the address right (or pass --start-url)"
	}
	addr := pu.Host
	if pu.Port() == "" {
		addr = net.JoinHostPort(host, map[string]string{"https": "443"}[pu.Scheme])
		if strings.HasSuffix(addr, ":") {
			addr += "80"
		}
	}
	if addr == defaultSiteAddr {
		return "start it with `orchestrator site`"
	}
	return fmt.Sprintf("start it with `orchestrator site --addr %s`", addr)
}
