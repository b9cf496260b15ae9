package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/playwright-community/playwright-go"
)

// SandboxArgs are the Chromium flags Multiverse always passes: no GPU, no
// background traffic to the vendor's services, no first-run UI.
var SandboxArgs = []string{
	"--disable-gpu",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--no-first-run",
	"--disable-default-apps",
	"--disable-dev-shm-usage",
	"--font-render-hinting=none",
	"--disable-features=" + strings.Join(disabledFeatures, ","),
}

// disabledFeatures is the Chromium feature list to turn off. Chromium
// keeps only the last --disable-features flag, and ours comes after the
// driver's, so it repeats the list Playwright 1.52 passes (HttpsUpgrades
// off keeps http:// navigations as recorded, PaintHolding off keeps
// screenshots honest, ...) and adds Multiverse's own.
var disabledFeatures = []string{
	// Playwright 1.52's defaults.
	"AcceptCHFrame", "AutoExpandDetailsElement", "AvoidUnnecessaryBeforeUnloadCheckSync",
	"CertificateTransparencyComponentUpdater", "DeferRendererTasksAfterInput", "DestroyProfileOnBrowserClose",
	"DialMediaRouteProvider", "ExtensionManifestV2Disabled", "GlobalMediaControls", "HttpsUpgrades",
	"ImprovedCookieControls", "LazyFrameLoading", "LensOverlay", "MediaRouter", "PaintHolding",
	"ThirdPartyStoragePartitioning", "Translate",
	// No calls to the vendor's services from a branch.
	"OptimizationHints", "AutofillServerCommunication",
}

// Options configure Launch. The zero value finds everything itself.
type Options struct {
	// ChromiumPath and DriverDir override discovery (see FindChromium and
	// FindDriver).
	ChromiumPath string
	DriverDir    string
	// Headful shows the browser window (for debugging on a desktop).
	Headful bool
	// Args are extra Chromium flags.
	Args []string
	// Resolve maps host names to IP addresses, for Chromium (its host
	// resolver rules) and HTTPClient alike: a site under its own name
	// served from an address DNS does not give.
	Resolve map[string]string
	Logger  *slog.Logger
}

// Runtime is one Playwright driver and one Chromium. Sessions are cheap
// isolated contexts inside it. Safe for concurrent use.
type Runtime struct {
	pw       *playwright.Playwright
	browser  playwright.Browser
	chromium string
	driver   Driver
	log      *slog.Logger

	mu     sync.Mutex
	closed bool
	lost   error
}

// Fingerprint describes the browser environment for run manifests.
type Fingerprint struct {
	Browser       string `json:"browser"`
	BrowserPath   string `json:"browser_path"`
	DriverVersion string `json:"driver_version"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
}

// Launch starts the driver and Chromium. Errors wrap ErrChromiumNotFound or
// ErrDriverNotFound when a part is missing.
func Launch(ctx context.Context, opts Options) (*Runtime, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	chromium, err := FindChromium(opts.ChromiumPath, opts.Headful)
	if err != nil {
		return nil, err
	}
	drv, err := FindDriver(opts.DriverDir)
	if err != nil {
		return nil, err
	}
	if drv.Node != "" && os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
		// playwright-go reads the node path from the environment only.
		os.Setenv("PLAYWRIGHT_NODEJS_PATH", drv.Node)
	}
	type result struct {
		pw  *playwright.Playwright
		err error
	}
	ch := make(chan result, 1)
	go func() {
		pw, err := playwright.Run(&playwright.RunOptions{
			DriverDirectory:     drv.Dir,
			SkipInstallBrowsers: true,
			Verbose:             false,
			Stdout:              io.Discard,
			Stderr:              &logWriter{log: log},
			Logger:              log,
		})
		ch <- result{pw, err}
	}()
	var pw *playwright.Playwright
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("%w: starting driver in %s: %v", ErrDriverNotFound, drv.Dir, r.err)
		}
		pw = r.pw
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.pw != nil {
				r.pw.Stop()
			}
		}()
		return nil, ctx.Err()
	}
	args := append([]string{}, SandboxArgs...)
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // Chromium refuses to run as root otherwise
	}
	if r := hostResolverRules(opts.Resolve); r != "" {
		args = append(args, r)
	}
	args = append(args, opts.Args...)
	b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(chromium),
		Headless:       playwright.Bool(!opts.Headful),
		Args:           args,
		Timeout:        millis(launchTimeout),
	})
	if err != nil {
		pw.Stop()
		return nil, fmt.Errorf("browser: launching %s: %w", chromium, err)
	}
	r := &Runtime{pw: pw, browser: b, chromium: chromium, driver: drv, log: log}
	b.On("disconnected", func() {
		r.mu.Lock()
		if !r.closed {
			r.lost = errors.New("browser: Chromium disconnected")
		}
		r.mu.Unlock()
	})
	return r, nil
}

// Err returns a non-nil error once Chromium was lost (crashed or killed).
func (r *Runtime) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lost
}

// Fingerprint returns the environment fingerprint of this runtime.
func (r *Runtime) Fingerprint() Fingerprint {
	return Fingerprint{Browser: "chromium/" + r.browser.Version(), BrowserPath: r.chromium,
		DriverVersion: DriverVersion, OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// Close closes Chromium and stops the driver. It is idempotent.
func (r *Runtime) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	// A renderer that stopped answering must not hold the process: the
	// driver is stopped (and Chromium with it) once the wait is over.
	err := closeWithin("Chromium", func() error { return r.browser.Close() })
	if e := r.pw.Stop(); err == nil {
		err = e
	}
	return err
}

type logWriter struct{ log *slog.Logger }

func (w *logWriter) Write(p []byte) (int, error) {
	w.log.Debug("playwright driver", "stderr", string(p))
	return len(p), nil
}
