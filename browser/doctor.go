package browser

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Part is one thing a run needs on the machine, as Check found it.
type Part struct {
	Name    string `json:"name"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	// Missing says what is wrong, "" when the part is there.
	Missing string `json:"missing,omitempty"`
	// Fix is the command that installs the part.
	Fix string `json:"fix,omitempty"`
	// Optional parts only make runs cheaper.
	Optional bool `json:"optional,omitempty"`
}

// Check reports Chromium, its headless shell, Node.js and the Playwright
// driver as a run with opts would find them.
func Check(ctx context.Context, opts Options) []Part {
	chromium := Part{Name: "Chromium", Fix: "sudo apt-get install chromium"}
	if p, err := FindChromium(opts.ChromiumPath, true); err != nil {
		chromium.Missing = err.Error()
	} else {
		chromium.Path, chromium.Version = p, version(ctx, p, "--version")
	}
	shell := Part{Name: "Chromium headless shell", Optional: true, Fix: "sudo apt-get install chromium-headless-shell",
		Missing: "not installed: headless runs use the full Chromium, at about 3x the CPU per branch"}
	for _, p := range HeadlessShellCandidates {
		if fileExists(p) {
			shell.Path, shell.Version, shell.Missing = p, version(ctx, p, "--version"), ""
			break
		}
	}
	dir := driverDir(opts.DriverDir)
	node := Part{Name: "Node.js", Fix: "sudo apt-get install nodejs npm"}
	if p, err := findNode(dir); err != nil {
		node.Missing = "node not found in the driver directory, PLAYWRIGHT_NODEJS_PATH or PATH"
	} else {
		node.Path, node.Version = p, version(ctx, p, "--version")
	}
	driver := Part{Name: "Playwright driver", Fix: "orchestrator install"}
	if dir == "" {
		_, err := FindDriver(opts.DriverDir)
		driver.Missing = err.Error()
	} else {
		driver.Path, driver.Version = dir, packageVersion(dir)
		if driver.Version != DriverVersion {
			driver.Missing = fmt.Sprintf("version %q, want %s", driver.Version, DriverVersion)
		}
	}
	return []Part{chromium, shell, node, driver}
}

// version runs exe with arg and returns the first line of its output.
func version(ctx context.Context, exe, arg string) string {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe, arg).Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

func packageVersion(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package", "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	json.Unmarshal(data, &pkg)
	return pkg.Version
}

// InstallDriver installs npm playwright-core at DriverVersion into dir
// (UserDriverDir when ""), as `make deps` does in the source tree: npm
// fetches the package from its registry, and the node that runs it is
// linked next to it. It returns the directory.
func InstallDriver(ctx context.Context, dir string, log io.Writer) (string, error) {
	if dir == "" {
		if dir = UserDriverDir(); dir == "" {
			return "", errors.New("browser: install: no per-user cache directory (set XDG_CACHE_HOME or HOME)")
		}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%w: npm not found: install Node.js and npm (`sudo apt-get install nodejs npm`)", ErrDriverNotFound)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("%w: node not found: install Node.js (`sudo apt-get install nodejs npm`)", ErrDriverNotFound)
	}
	tmp, err := os.MkdirTemp("", "multiverse-install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	pkg := "playwright-core@" + DriverVersion
	fmt.Fprintf(log, "fetching %s with npm\n", pkg)
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", pkg)
	cmd.Dir, cmd.Stderr = tmp, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("browser: install: npm pack %s: %w (is the npm registry reachable?)", pkg, err)
	}
	staging := dir + ".partial"
	os.RemoveAll(staging)
	if err := untgz(filepath.Join(tmp, "playwright-core-"+DriverVersion+".tgz"), staging); err != nil {
		os.RemoveAll(staging)
		return "", fmt.Errorf("browser: install: unpacking %s: %w", pkg, err)
	}
	if err := os.Symlink(node, filepath.Join(staging, "node")); err != nil {
		os.RemoveAll(staging)
		return "", err
	}
	os.RemoveAll(dir)
	if err := os.Rename(staging, dir); err != nil {
		return "", err
	}
	if v := packageVersion(dir); v != DriverVersion {
		return "", fmt.Errorf("browser: install: %s holds version %q, want %s", dir, v, DriverVersion)
	}
	return dir, nil
}

// untgz unpacks a gzipped tar of regular files and directories into dir,
// refusing paths that leave it.
func untgz(file, dir string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%s leaves the directory", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
