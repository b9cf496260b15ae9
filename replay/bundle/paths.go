package bundle

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Fixed file names inside a bundle.
const (
	ManifestFile  = "manifest.json"
	EventsFile    = "events.jsonl"
	NetworkFile   = "network.jsonl"
	HARFile       = "network.har"
	ChecksumsFile = "checksums.json"
)

const (
	stepsDir  = "steps/"
	bodiesDir = "bodies/"
)

// StepPath returns the bundle path of step i's record: "steps/0003.json"
// (1-based, zero padded to at least four digits).
func StepPath(i int) string { return stepBase(i) + ".json" }

// DOMPath returns the path of step i's scrubbed canonical DOM text.
func DOMPath(i int) string { return stepBase(i) + ".dom.txt" }

// AXPath returns the path of step i's accessibility snapshot text.
func AXPath(i int) string { return stepBase(i) + ".ax.txt" }

// ScreenshotPath returns the path of step i's screenshot.
func ScreenshotPath(i int) string { return stepBase(i) + ".png" }

// BodyPath returns the path of a response body: "bodies/<sha256>".
func BodyPath(sha256Hex string) string { return bodiesDir + sha256Hex }

func stepBase(i int) string { return fmt.Sprintf("%s%04d", stepsDir, i) }

// fileKind classifies a bundle path.
type fileKind int

const (
	kindUnknown fileKind = iota
	kindManifest
	kindEvents
	kindNetwork
	kindHAR
	kindChecksums
	kindStep
	kindDOM
	kindAX
	kindScreenshot
	kindBody
)

// isContent reports whether files of kind k belong in Bundle.Files.
func (k fileKind) isContent() bool {
	return k == kindDOM || k == kindAX || k == kindScreenshot || k == kindBody
}

// classify returns the kind of path p and, for per-step files, the step
// number. Step numbers must be written exactly as StepPath writes them.
func classify(p string) (fileKind, int) {
	switch p {
	case ManifestFile:
		return kindManifest, 0
	case EventsFile:
		return kindEvents, 0
	case NetworkFile:
		return kindNetwork, 0
	case HARFile:
		return kindHAR, 0
	case ChecksumsFile:
		return kindChecksums, 0
	}
	if h, ok := strings.CutPrefix(p, bodiesDir); ok {
		if isSHA256Hex(h) {
			return kindBody, 0
		}
		return kindUnknown, 0
	}
	rest, ok := strings.CutPrefix(p, stepsDir)
	if !ok {
		return kindUnknown, 0
	}
	num, suffix, ok := strings.Cut(rest, ".")
	if !ok {
		return kindUnknown, 0
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || fmt.Sprintf("%04d", n) != num {
		return kindUnknown, 0
	}
	switch suffix {
	case "json":
		return kindStep, n
	case "dom.txt":
		return kindDOM, n
	case "ax.txt":
		return kindAX, n
	case "png":
		return kindScreenshot, n
	}
	return kindUnknown, 0
}

// isSHA256Hex reports whether s is 64 lowercase hex digits.
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// checkPath returns why name is not a safe bundle path, or "" if it is: a
// clean, relative, slash-separated UTF-8 path without "..", ".", empty
// elements, backslashes, colons or NUL.
func checkPath(name string) string {
	switch {
	case name == "":
		return "empty path"
	case strings.ContainsRune(name, 0):
		return "path contains NUL"
	case strings.HasPrefix(name, "/"):
		return "absolute path"
	case strings.ContainsRune(name, '\\'):
		return "path contains a backslash"
	case strings.ContainsRune(name, ':'):
		return "path contains a colon"
	case !utf8.ValidString(name):
		return "path is not valid UTF-8"
	}
	for _, el := range strings.Split(name, "/") {
		switch el {
		case "..":
			return `path contains ".."`
		case ".", "":
			return `path is not clean (".", empty or trailing-slash elements)`
		}
	}
	return ""
}
