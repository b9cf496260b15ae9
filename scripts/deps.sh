#!/usr/bin/env bash
# Installs what Multiverse needs to run and test, idempotently, from the
# package registries only: Go modules, Debian's chromium when no Chromium
# is found and its chromium-headless-shell, Node.js when missing, and the
# Playwright driver (npm playwright-core at exactly the version the pinned
# playwright-go speaks) into the project-local .cache/playwright-driver/VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else return 1
  fi
}

apt_updated=
apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  if [ -z "$apt_updated" ]; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Go and its modules.
command -v go >/dev/null 2>&1 || die "Go is not installed: see https://go.dev/doc/install (go.mod names the version)"
go mod download

# Chromium: an explicit one, a system one, or Debian's package.
find_chromium() {
  if [ -n "${MULTIVERSE_CHROMIUM:-}" ] && [ -x "${MULTIVERSE_CHROMIUM}" ]; then echo "$MULTIVERSE_CHROMIUM"; return; fi
  for p in /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome-stable /usr/bin/google-chrome /snap/bin/chromium; do
    [ -x "$p" ] && { echo "$p"; return; }
  done
  for n in chromium chromium-browser google-chrome; do
    command -v "$n" 2>/dev/null && return
  done
}
chromium=$(find_chromium || true)
if [ -z "$chromium" ]; then
  say "no Chromium found: installing Debian's chromium package"
  apt_install chromium || die "could not install Chromium: run 'sudo apt-get install chromium' or set MULTIVERSE_CHROMIUM to a Chromium/Chrome executable"
  chromium=$(find_chromium || true)
  [ -n "$chromium" ] || die "Chromium is still missing after installing it"
fi

# Chromium's headless shell: the same engine at about a third of the CPU
# per context and page load; runs prefer it when headless. Optional: the
# full Chromium above serves when it cannot be installed.
find_shell() {
  for p in /usr/bin/chromium-headless-shell /usr/bin/chrome-headless-shell; do
    [ -x "$p" ] && { echo "$p"; return; }
  done
}
shell=$(find_shell || true)
if [ -z "$shell" ] && [ -z "${MULTIVERSE_CHROMIUM:-}" ]; then
  say "no Chromium headless shell found: installing Debian's chromium-headless-shell package"
  if apt_install chromium-headless-shell; then
    shell=$(find_shell || true)
  else
    say "warning: could not install chromium-headless-shell; headless runs use $chromium (about 3x the CPU per branch)"
  fi
fi

# Node.js runs the Playwright driver.
if ! command -v node >/dev/null 2>&1; then
  say "no Node.js found: installing Debian's nodejs and npm packages"
  apt_install nodejs npm || die "could not install Node.js: run 'sudo apt-get install nodejs npm'"
fi
command -v npm >/dev/null 2>&1 || apt_install npm || die "npm is missing: run 'sudo apt-get install npm'"

# The Playwright driver: npm playwright-core at the pinned version.
version=$(sed -n 's/^const DriverVersion = "\(.*\)"$/\1/p' browser/discover.go)
[ -n "$version" ] || die "cannot read DriverVersion from browser/discover.go"
dir=.cache/playwright-driver/$version
if [ -f "$dir/package/cli.js" ] && [ -x "$dir/node" ] && "$dir/node" "$dir/package/cli.js" --version 2>/dev/null | grep -q "$version"; then
  :
else
  say "installing the Playwright driver (npm playwright-core@$version) into $dir"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "playwright-core@$version" >/dev/null) || die "npm pack playwright-core@$version failed (is the npm registry reachable?)"
  rm -rf "$dir"
  mkdir -p "$dir"
  tar -xzf "$tmp"/playwright-core-"$version".tgz -C "$dir"
  ln -sf "$(command -v node)" "$dir/node"
  "$dir/node" "$dir/package/cli.js" --version | grep -q "$version" || die "the driver in $dir does not report version $version"
fi
say "ok: $("$chromium" --version 2>/dev/null | head -n1) at $chromium${shell:+, headless shell at $shell}; Playwright driver $version in $dir"
