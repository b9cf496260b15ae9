package patterns

import (
	"bytes"
	"embed"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/task"
)

// Placeholder is the origin the site's task files name (start_url
// http://patterns.invalid/...): TaskFile and Task put the origin the
// site is served at in its place.
const Placeholder = "http://patterns.invalid"

//go:embed testdata/*.yaml
var taskFiles embed.FS

// TaskFile returns the site's task file name (below.yaml, wizard.yaml,
// ...; testdata/ holds them) with Placeholder replaced by origin, the
// site's address ("http://127.0.0.1:PORT").
func TaskFile(name, origin string) ([]byte, error) {
	raw, err := taskFiles.ReadFile("testdata/" + name)
	if err != nil {
		return nil, fmt.Errorf("patterns: task %s: %w", name, err)
	}
	return bytes.ReplaceAll(raw, []byte(Placeholder), []byte(origin)), nil
}

// Task parses the site's task file name with the site at origin.
func Task(name, origin string) (*task.Task, error) {
	raw, err := TaskFile(name, origin)
	if err != nil {
		return nil, err
	}
	return task.Parse(name, raw)
}
