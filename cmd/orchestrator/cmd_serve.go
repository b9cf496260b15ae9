package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/dashboard"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// cmdServe serves the dashboard over a data dir (or one bundle) until
// ctx is cancelled.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	addr := fs.String("addr", "127.0.0.1:8620", "listen address; a non-loopback one needs --token")
	token := fs.String("token", "", "require this token on every request (Authorization: Bearer TOKEN or ?token=TOKEN)")
	bundleFile := fs.String("bundle", "", "browse this bundle file instead of a data dir")
	chromium := fs.String("chromium", "", "Chromium executable (for replays)")
	driver := fs.String("driver", "", "Playwright driver directory (for replays)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator serve [--data-dir DIR | --bundle FILE] [--addr 127.0.0.1:8620] [--token T]")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		fs.Usage()
		return errUsage
	}
	if err := dashboard.CheckAddr(*addr, *token); err != nil {
		return badInput("--addr: %v", err)
	}
	st, closeFn, err := serveStores(ctx, *dataDir, *bundleFile)
	if err != nil {
		return err
	}
	defer closeFn()
	opts := []dashboard.Option{dashboard.WithBrowser(browser.Options{ChromiumPath: *chromium, DriverDir: *driver}),
		dashboard.WithLogger(slog.New(slog.NewTextHandler(stderr, nil)))}
	if *token != "" {
		opts = append(opts, dashboard.WithToken(*token))
	}
	srv, err := dashboard.New(st, opts...)
	if err != nil {
		return badInput("%v", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	what := "data dir " + *dataDir
	if *bundleFile != "" {
		what = "bundle " + *bundleFile
	}
	fmt.Fprintf(stdout, "dashboard of %s at http://%s/ (read-only; Ctrl-C stops)\n", what, ln.Addr())
	if *token != "" {
		fmt.Fprintln(stdout, "every request needs the token: open the page with ?token=TOKEN")
	}
	return listenUntilDone(ctx, ln, srv.Handler())
}

// serveStores opens what serve shows: a bundle, or a data dir's stores
// read-only (the artifact store only when the data dir has one, so
// nothing is created).
func serveStores(ctx context.Context, dataDir, bundleFile string) (dashboard.Stores, func(), error) {
	if bundleFile != "" {
		b, err := bundle.ReadFile(bundleFile, bundle.Limits{})
		if err != nil {
			return dashboard.Stores{}, nil, fmt.Errorf("%w: %s: %v", orchestrator.ErrVerify, bundleFile, err)
		}
		return dashboard.Stores{Bundle: b}, func() {}, nil
	}
	el, err := openEventsRO(ctx, dataDir)
	if err != nil {
		return dashboard.Stores{}, nil, err
	}
	st := dashboard.Stores{Events: el, DataDir: dataDir}
	closeFn := func() { el.Close() }
	if fileExists(filepath.Join(dataDir, ledgerFile)) {
		l, err := openLedgerRO(ctx, dataDir)
		if err != nil {
			el.Close()
			return dashboard.Stores{}, nil, err
		}
		st.Ledger = l
		closeFn = func() { el.Close(); l.Close() }
	}
	if fi, err := os.Stat(filepath.Join(dataDir, "artifacts")); err == nil && fi.IsDir() {
		if st.Artifacts, err = artifacts.OpenFS(filepath.Join(dataDir, "artifacts")); err != nil {
			closeFn()
			return dashboard.Stores{}, nil, badInput("artifact store: %v", err)
		}
	}
	return st, closeFn, nil
}

// listenUntilDone serves h on ln until ctx is cancelled, then cancels the
// requests in flight (live streams, a replay) and shuts down.
func listenUntilDone(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
