package browser

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDriverVersionMatchesModule keeps DriverVersion in step with the
// playwright-go version in go.mod: the driver must be exactly the one it
// speaks.
func TestDriverVersionMatchesModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/playwright-community/playwright-go").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "run.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`playwrightCliVersion\s*=\s*"([^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("playwrightCliVersion not found in playwright-go's run.go")
	}
	if string(m[1]) != DriverVersion {
		t.Fatalf("DriverVersion = %s, playwright-go pins %s", DriverVersion, m[1])
	}
}

func TestFindChromiumExplicitMissing(t *testing.T) {
	_, err := FindChromium("/no/such/chromium", false)
	if !errors.Is(err, ErrChromiumNotFound) || !strings.Contains(err.Error(), "/no/such/chromium") {
		t.Fatalf("err = %v", err)
	}
}

func TestFindDriverExplicitMissing(t *testing.T) {
	_, err := FindDriver(t.TempDir())
	if !errors.Is(err, ErrDriverNotFound) || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("err = %v", err)
	}
}

func TestFindDriverLayout(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "package"), 0o755)
	os.WriteFile(filepath.Join(dir, "package", "cli.js"), []byte("//"), 0o644)
	os.WriteFile(filepath.Join(dir, "node"), []byte("#!/bin/sh\n"), 0o755)
	d, err := FindDriver(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Dir != dir || d.Node != filepath.Join(dir, "node") {
		t.Fatalf("driver = %+v", d)
	}
}

// TestDisabledFeaturesKeepDriverDefaults: Chromium honours only the last
// --disable-features flag, so Multiverse's must still carry the features
// the driver turns off for faithful automation.
func TestDisabledFeaturesKeepDriverDefaults(t *testing.T) {
	var flags []string
	for _, a := range SandboxArgs {
		if strings.HasPrefix(a, "--disable-features=") {
			flags = append(flags, a)
		}
	}
	if len(flags) != 1 {
		t.Fatalf("want exactly one --disable-features flag, have %q", flags)
	}
	have := strings.Split(strings.TrimPrefix(flags[0], "--disable-features="), ",")
	for _, f := range []string{"HttpsUpgrades", "PaintHolding", "LazyFrameLoading", "ThirdPartyStoragePartitioning", "Translate", "AutofillServerCommunication"} {
		if !slices.Contains(have, f) {
			t.Errorf("--disable-features lacks %s", f)
		}
	}
}
