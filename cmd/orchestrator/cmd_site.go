package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/sites/cms"
)

// demoLatency is the demo site's response latency unless --latency says
// otherwise (the `site` and `demo` commands).
const demoLatency = 100 * time.Millisecond

func cmdSite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("site", flag.ContinueOnError)
	addr := fs.String("addr", defaultSiteAddr, "listen address")
	latency := fs.Duration("latency", demoLatency, "response latency")
	ab := fs.String("ab", "", "A/B variant: A, B or random")
	orders := fs.String("orders-file", "", "keep orders in this JSON file across restarts")
	login := fs.Bool("require-login", false, "put checkout and orders behind a login (account "+sites.DemoEmail+", password \""+sites.DemoPassword+"\")")
	sessionRequests := fs.Int("session-requests", 0, "with --require-login: a session ends after this many requests (0: never)")
	seatsOffset := fs.Int("seats-offset", 0, "record every order with this many seats more (a wrong-quantity bug, for commit.postcheck and commit.compensate)")
	cmsSite := fs.Bool("cms", false, "serve Inkwell CMS, the server-rendered admin test site (login "+cms.DefaultUsername+" / "+cms.DefaultPassword+"), instead of the vendor; only --addr and --latency apply")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: orchestrator site [flags]"); fs.PrintDefaults() }
	if err := parseNone(fs, args, stderr); err != nil {
		return err
	}
	if *cmsSite {
		return serveCMS(ctx, *addr, *latency, stdout)
	}
	k := sites.DefaultKnobs()
	k.Latency, k.ABVariant = *latency, *ab
	k.RequireLogin, k.SessionRequests = *login, *sessionRequests
	k.SeatsOffset = *seatsOffset
	v, err := sites.NewVendor(sites.VendorOptions{Knobs: k, OrdersFile: *orders})
	if err != nil {
		return badInput("%v", err)
	}
	srv, err := sites.Serve(ctx, v, *addr)
	if err != nil {
		return badInput("listening on %s: %v", *addr, err)
	}
	fmt.Fprintf(stdout, "demo vendor site serving at %s (knobs: %s/__admin/knobs, orders: %s/api/orders); Ctrl-C stops it\n", srv.URL(), srv.URL(), srv.URL())
	<-ctx.Done()
	return srv.Close(context.Background())
}

// serveCMS serves the Inkwell CMS test site until ctx ends.
func serveCMS(ctx context.Context, addr string, latency time.Duration, stdout io.Writer) error {
	site, err := cms.New(cms.Options{Latency: latency})
	if err != nil {
		return badInput("%v", err)
	}
	srv, err := sites.Serve(ctx, site, addr)
	if err != nil {
		return badInput("listening on %s: %v", addr, err)
	}
	fmt.Fprintf(stdout, "Inkwell CMS serving at %s/admin/ (login %s / %s; users: %s/api/users, writes received: %s/__test/writes); Ctrl-C stops it\n",
		srv.URL(), cms.DefaultUsername, cms.DefaultPassword, srv.URL(), srv.URL())
	<-ctx.Done()
	return srv.Close(context.Background())
}
