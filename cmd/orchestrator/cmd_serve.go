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
	"strings"
	"syscall"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/dashboard"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// cmdServe serves the dashboard over a data dir (or one bundle) until
// ctx is cancelled.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	lf := registerListen(fs, "127.0.0.1:8620", "Authorization: Bearer TOKEN or ?token=TOKEN")
	bundleFile := fs.String("bundle", "", "browse this bundle file instead of a data dir")
	chromium := fs.String("chromium", "", "Chromium executable (for replays)")
	driver := fs.String("driver", "", "Playwright driver directory (for replays)")
	engineAddr := fs.String("engine", "", "submit runs from the dashboard to the engine at ADDR (orchestrator engine; serve its data dir to follow them)")
	engineTokFile := fs.String("engine-token-file", "", "read the engine's token from this file (default: "+tokenEnv+", as run --engine reads it)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator serve [--data-dir DIR | --bundle FILE] [--addr 127.0.0.1:8620] [--token-file FILE | --token T] [--engine ADDR]")
		fmt.Fprintln(stderr, "  without either, the token is "+tokenEnv+" when set")
		fs.PrintDefaults()
	}
	if err := parseNone(fs, args, stderr); err != nil {
		return err
	}
	token, err := lf.token()
	if err != nil {
		return err
	}
	st, closeFn, err := serveStores(ctx, *dataDir, *bundleFile)
	if err != nil {
		return err
	}
	defer closeFn()
	opts := []dashboard.Option{dashboard.WithBrowser(browser.Options{ChromiumPath: *chromium, DriverDir: *driver}),
		dashboard.WithLogger(slog.New(slog.NewTextHandler(stderr, nil)))}
	if token != "" {
		opts = append(opts, dashboard.WithToken(token))
	}
	if *engineAddr != "" {
		etok, err := serveToken("", *engineTokFile, os.Getenv)
		if err != nil {
			return err
		}
		opts = append(opts, dashboard.WithEngine(*engineAddr, etok))
	} else if *engineTokFile != "" {
		return badInput("--engine-token-file without --engine")
	}
	srv, err := dashboard.New(st, opts...)
	if err != nil {
		return badInput("%v", err)
	}
	ln, err := lf.listen("serve", "dashboard")
	if err != nil {
		return err
	}
	what := "data dir " + *dataDir
	if *bundleFile != "" {
		what = "bundle " + *bundleFile
	}
	fmt.Fprintf(stdout, "dashboard of %s at http://%s/ (read-only; Ctrl-C stops)\n", what, ln.Addr())
	if token != "" {
		fmt.Fprintln(stdout, "every request needs the token: open the page with ?token=TOKEN")
	}
	return listenUntilDone(ctx, ln, srv.Handler())
}

// listenFlags are the address and token flags of a command that serves
// HTTP (serve, engine).
type listenFlags struct {
	addr, tok, tokFile *string
}

// registerListen adds --addr (default addr), --token and --token-file;
// how says how a request carries the token.
func registerListen(fs *flag.FlagSet, addr, how string) *listenFlags {
	return &listenFlags{
		addr:    fs.String("addr", addr, "listen address; a non-loopback one needs a token"),
		tok:     fs.String("token", "", "require this token on every request ("+how+"); visible to other users in ps: prefer --token-file or "+tokenEnv),
		tokFile: fs.String("token-file", "", "read the token from this file (its first "+fmt.Sprint(maxTokenBytes)+" bytes, trimmed); instead of --token"),
	}
}

// token is the token the flags give (serveToken), after checking that a
// non-loopback address has one.
func (l *listenFlags) token() (string, error) {
	token, err := serveToken(*l.tok, *l.tokFile, os.Getenv)
	if err != nil {
		return "", err
	}
	if err := dashboard.CheckAddr(*l.addr, token); err != nil {
		return "", badInput("--addr: %v", err)
	}
	return token, nil
}

// listen listens on --addr; an address taken is bad input naming what
// else may listen there (what: "dashboard", "engine").
func (l *listenFlags) listen(cmd, what string) (net.Listener, error) {
	ln, err := net.Listen("tcp", *l.addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%w: %s: %s is taken (another %s or service listens there): pass --addr 127.0.0.1:0 for a free port, or another port",
			orchestrator.ErrBadInput, cmd, *l.addr, what)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return ln, nil
}

// tokenEnv is the environment variable serve reads its token from when
// neither --token nor --token-file is given.
const tokenEnv = "MULTIVERSE_TOKEN"

// maxTokenBytes bounds what serve reads of a token file.
const maxTokenBytes = 4096

// serveToken is the dashboard's token: --token, else the content of
// --token-file (trimmed), else $MULTIVERSE_TOKEN (trimmed); "" for none.
// Both flags given, or a token file that is not a regular file, is
// empty, or is longer than maxTokenBytes, is bad input naming it.
func serveToken(flagToken, file string, getenv func(string) string) (string, error) {
	switch {
	case flagToken != "" && file != "":
		return "", badInput("--token and --token-file: give one of them")
	case flagToken != "":
		return flagToken, nil
	case file != "":
		f, err := regfile.Open(file)
		if err != nil {
			return "", badInput("--token-file %s: %v", file, err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxTokenBytes+1))
		if err != nil {
			return "", badInput("--token-file %s: %v", file, err)
		}
		if len(b) > maxTokenBytes {
			return "", badInput("--token-file %s: longer than %d bytes: not a token file", file, maxTokenBytes)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", badInput("--token-file %s: empty", file)
		}
		if strings.ContainsAny(tok, "\r\n") {
			return "", badInput("--token-file %s: holds more than one line", file)
		}
		return tok, nil
	}
	return strings.TrimSpace(getenv(tokenEnv)), nil
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
	return serveUntil(ctx, ln, h, serveEnd{name: "serve"})
}

// serveEnd says how serveUntil ends: name prefixes its errors; the
// requests of a detached server do not end with ctx (an engine's watch
// gets the run's last report); stopping, when set, runs once ctx is done
// or the server failed, before the server shuts down.
type serveEnd struct {
	name     string
	detached bool
	stopping func()
}

// serveUntil serves h on ln until ctx is cancelled, then shuts down,
// waiting 5 s at most for the requests in flight.
func serveUntil(ctx context.Context, ln net.Listener, h http.Handler, end serveEnd) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if !end.detached {
		hs.BaseContext = func(net.Listener) context.Context { return ctx }
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		if end.stopping != nil {
			end.stopping()
		}
		return fmt.Errorf("%s: %w", end.name, err)
	case <-ctx.Done():
	}
	if end.stopping != nil {
		end.stopping()
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", end.name, err)
	}
	return nil
}
