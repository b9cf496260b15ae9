// Package examples embeds the example task specs, so the orchestrator's
// demo runs from any directory.
package examples

import "embed"

// FS holds the example task files (*.yaml).
//
//go:embed *.yaml
var FS embed.FS

// DemoTask is the file the demo runs.
const DemoTask = "procure-team-plan.yaml"
