package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
)

// DriverVersion is the Playwright driver (npm playwright-core) version the
// pinned playwright-go speaks. A test checks it against the module.
const DriverVersion = "1.52.0"

// ErrChromiumNotFound and ErrDriverNotFound say the machine lacks a part;
// their messages say how to install it.
var (
	ErrChromiumNotFound = errors.New("browser: Chromium not found")
	ErrDriverNotFound   = errors.New("browser: Playwright driver not found")
)

// HeadlessShellCandidates are the system paths of Chromium's headless
// shell, tried first for a headless browser: the same engine without the
// desktop browser around it. On a 2-core machine it spends about a third
// of the full browser's CPU per context, page load and observation
// (BenchmarkBuild), which is what lets branches run side by side.
var HeadlessShellCandidates = []string{
	"/usr/bin/chromium-headless-shell",
	"/usr/bin/chrome-headless-shell",
}

// ChromiumCandidates are the system paths tried, in order, after the flag,
// MULTIVERSE_CHROMIUM and (when headless) the headless shell.
var ChromiumCandidates = []string{
	"/usr/bin/chromium",
	"/usr/bin/chromium-browser",
	"/usr/bin/google-chrome-stable",
	"/usr/bin/google-chrome",
	"/snap/bin/chromium",
	"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
	"/Applications/Chromium.app/Contents/MacOS/Chromium",
}

// FindChromium returns the Chromium executable: explicit, then the
// MULTIVERSE_CHROMIUM environment variable, then (unless headful) the
// headless shell, then system paths, then PATH, then a browser installed
// by Playwright's own installer.
func FindChromium(explicit string, headful bool) (string, error) {
	try := func(p, from string) (string, error) {
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			return "", fmt.Errorf("%w: %s %q does not exist", ErrChromiumNotFound, from, p)
		}
		return p, nil
	}
	if explicit != "" {
		return try(explicit, "--chromium")
	}
	if env := os.Getenv("MULTIVERSE_CHROMIUM"); env != "" {
		return try(env, "MULTIVERSE_CHROMIUM")
	}
	candidates := ChromiumCandidates
	if !headful {
		candidates = append(append([]string{}, HeadlessShellCandidates...), candidates...)
	}
	for _, p := range candidates {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		var matches []string
		if !headful {
			matches, _ = filepath.Glob(filepath.Join(home, ".cache", "ms-playwright", "chromium_headless_shell-*", "chrome-linux", "headless_shell"))
		}
		if len(matches) == 0 {
			matches, _ = filepath.Glob(filepath.Join(home, ".cache", "ms-playwright", "chromium-*", "chrome-linux", "chrome"))
		}
		sort.Sort(sort.Reverse(sort.StringSlice(matches)))
		if len(matches) > 0 {
			return matches[0], nil
		}
	}
	return "", fmt.Errorf("%w: install it with `sudo apt-get install chromium` (Debian/Ubuntu) or `make deps`, or point --chromium / MULTIVERSE_CHROMIUM at a Chromium or Chrome executable", ErrChromiumNotFound)
}

// Driver is a located Playwright driver: Dir holds package/cli.js; Node is
// the node executable that runs it.
type Driver struct {
	Dir  string
	Node string
}

// UserDriverDir is the per-user driver directory, where `orchestrator
// install` puts the driver: $XDG_CACHE_HOME/multiverse/playwright-driver/
// VERSION, else ~/.cache/multiverse/playwright-driver/VERSION; "" when
// neither is known.
func UserDriverDir() string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "multiverse", "playwright-driver", DriverVersion)
}

// FindDriver locates the driver: explicit, then PLAYWRIGHT_DRIVER_PATH,
// then the project-local cache (.cache/playwright-driver/VERSION below the
// working directory or the executable's directory and its parents), then
// the per-user cache (UserDriverDir), then playwright-go's own install
// location. Node comes from the driver
// directory, then PLAYWRIGHT_NODEJS_PATH, then PATH.
func FindDriver(explicit string) (Driver, error) {
	dir := driverDir(explicit)
	if dir == "" {
		if explicit != "" {
			return Driver{}, fmt.Errorf("%w: no playwright-core %s in %s (--driver): point it at a directory holding package/cli.js, or leave it out after `orchestrator install` (or `make deps` in the source tree)", ErrDriverNotFound, DriverVersion, explicit)
		}
		return Driver{}, fmt.Errorf("%w: no playwright-core %s in the project's .cache/playwright-driver/%s nor in %s: run `orchestrator install` (it installs npm playwright-core@%s into the per-user cache), or `make deps` in the source tree, or set --driver / PLAYWRIGHT_DRIVER_PATH to a directory holding package/cli.js", ErrDriverNotFound, DriverVersion, DriverVersion, UserDriverDir(), DriverVersion)
	}
	node, err := findNode(dir)
	if err != nil {
		return Driver{}, err
	}
	return Driver{Dir: dir, Node: node}, nil
}

// driverDir returns the first candidate directory holding package/cli.js,
// "" when none does.
func driverDir(explicit string) string {
	var candidates []string
	if explicit != "" {
		candidates = []string{explicit}
	} else {
		if env := os.Getenv("PLAYWRIGHT_DRIVER_PATH"); env != "" {
			candidates = append(candidates, env)
		}
		rel := filepath.Join(".cache", "playwright-driver", DriverVersion)
		var roots []string
		if wd, err := os.Getwd(); err == nil {
			roots = append(roots, wd)
		}
		if exe, err := os.Executable(); err == nil {
			roots = append(roots, filepath.Dir(exe))
		}
		for _, r := range roots {
			for d := r; ; d = filepath.Dir(d) {
				candidates = append(candidates, filepath.Join(d, rel))
				if filepath.Dir(d) == d {
					break
				}
			}
		}
		if dir := UserDriverDir(); dir != "" {
			candidates = append(candidates, dir)
		}
		if cache, err := os.UserCacheDir(); err == nil {
			candidates = append(candidates, filepath.Join(cache, "ms-playwright-go", DriverVersion))
		}
	}
	for _, dir := range candidates {
		if _, err := os.Stat(filepath.Join(dir, "package", "cli.js")); err == nil {
			return dir
		}
	}
	return ""
}

func findNode(dir string) (string, error) {
	name := "node"
	if runtime.GOOS == "windows" {
		name = "node.exe"
	}
	if p := filepath.Join(dir, name); dir != "" && fileExists(p) {
		return p, nil
	}
	if env := os.Getenv("PLAYWRIGHT_NODEJS_PATH"); env != "" && fileExists(env) {
		return env, nil
	}
	if p, err := exec.LookPath("node"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: node not found: install Node.js (`sudo apt-get install nodejs`) or put node in %s", ErrDriverNotFound, dir)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
