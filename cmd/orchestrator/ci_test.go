package main

import (
	"bytes"
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// The CI files in deploy/ci run on GitHub and GitLab, not here. These tests
// parse them and check what they rely on, so they cannot rot silently:
// every orchestrator command they call parses with the flags of this
// binary, the run writes a JUnit report that is published, the bundles a
// failed run writes (orchestrator.FailureBundlePath) are kept as artifacts
// and found by the replay job, which runs after a failed run.

var ciDir = filepath.Join("..", "..", "deploy", "ci")

// ciPlan is what a CI file says, in the terms the checks use.
type ciPlan struct {
	env map[string]string
	// runJob and replayJob are the shell lines of the two jobs.
	runJob, replayJob []string
	// junit is the report path the CI system publishes.
	junit string
	// kept are the globs of the artifacts kept after a failed run.
	kept []string
	// keptOnFailure: the artifacts are kept when the run fails.
	keptOnFailure bool
	// replayAfterFailure: the replay job needs the run job (and its
	// artifacts) and runs when it failed.
	replayAfterFailure bool
	// landed maps a kept bundle's path in the run job to its path in the
	// replay job.
	landed func(string) string
}

func TestCIFiles(t *testing.T) {
	goVersion := goModVersion(t)
	for _, c := range []struct {
		file  string
		parse func(t *testing.T, data []byte, goVersion string) ciPlan
	}{
		{"github-actions.yml", parseGitHub},
		{"gitlab-ci.yml", parseGitLab},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(ciDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, c.parse(t, data, goVersion))
		})
	}
}

// checkPlan checks what both CI files must do.
func checkPlan(t *testing.T, p ciPlan) {
	t.Helper()
	for name, lines := range map[string][]string{"run": p.runJob, "replay": p.replayJob} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "make deps build") }) {
			t.Errorf("the %s job does not build with make deps build", name)
		}
	}
	cmds := orchestratorCommands(p.runJob, p.env)
	runCmd := findCommand(cmds, "run")
	if runCmd == nil {
		t.Fatalf("the run job calls no orchestrator run: %q", p.runJob)
	}
	dataDir, junit := flagValue(runCmd, "data-dir"), flagValue(runCmd, "junit")
	if dataDir != p.env["DATA_DIR"] || dataDir == "" {
		t.Errorf("orchestrator run --data-dir %q, want DATA_DIR (%q)", dataDir, p.env["DATA_DIR"])
	}
	if junit == "" || path.Clean(junit) != path.Clean(p.junit) {
		t.Errorf("orchestrator run --junit %q, but the CI publishes %q", junit, p.junit)
	}
	bundle := orchestrator.FailureBundlePath(dataDir, "01JRUN", "01JBRANCH")
	commit := filepath.Join(dataDir, "bundles", "01JRUN-commit.bundle")
	if !slices.ContainsFunc(p.kept, func(g string) bool { return globMatch(g, bundle) }) {
		t.Errorf("no kept artifact %q holds a failed run's bundle %s", p.kept, bundle)
	}
	if slices.ContainsFunc(p.kept, func(g string) bool { return globMatch(g, commit) }) {
		t.Errorf("the kept artifacts %q hold a committed run's bundle %s too", p.kept, commit)
	}
	if !p.keptOnFailure || !p.replayAfterFailure {
		t.Errorf("artifacts kept on failure: %v; replay job after a failed run: %v", p.keptOnFailure, p.replayAfterFailure)
	}
	replays := orchestratorCommands(p.replayJob, p.env)
	replayCmd := findCommand(replays, "replay")
	if replayCmd == nil || !slices.Contains(replayCmd, "--fail-on-unrecorded") {
		t.Fatalf("the replay job calls no orchestrator replay --fail-on-unrecorded: %q", p.replayJob)
	}
	loop := loopGlob(p.replayJob, p.env)
	if landed := p.landed(bundle); loop == "" || !globMatch(loop, landed) {
		t.Errorf("the replay job loops over %q, but a kept bundle lands at %s", loop, landed)
	}
	for _, cmd := range append(cmds, replays...) {
		checkFlags(t, cmd)
	}
}

// checkFlags runs the command with -h appended: it must get as far as its
// usage, every flag defined and every value valid.
func checkFlags(t *testing.T, args []string) {
	t.Helper()
	var o, e bytes.Buffer
	run(context.Background(), append(slices.Clone(args), "-h"), &o, &e)
	msg := e.String()
	if !strings.Contains(msg, "usage: orchestrator "+args[0]) || strings.Contains(msg, "not defined") || strings.Contains(msg, "invalid value") {
		t.Errorf("orchestrator %s: the flags do not parse:\n%s", strings.Join(args, " "), msg)
	}
}

// orchestratorCommand matches an orchestrator command line up to the end
// of its shell command.
var orchestratorCommand = regexp.MustCompile(`bin/orchestrator\s+([^;&|\n]*)`)

// shellVar matches ${NAME} and $NAME.
var shellVar = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

// orchestratorCommands returns the arguments of each orchestrator command
// in the lines, with variables expanded from env (a loop variable stands
// for a bundle).
func orchestratorCommands(lines []string, env map[string]string) [][]string {
	var out [][]string
	for _, l := range lines {
		for _, m := range orchestratorCommand.FindAllStringSubmatch(l, -1) {
			out = append(out, strings.Fields(expand(m[1], env)))
		}
	}
	return out
}

// expand expands the variables of a shell word list and drops its quotes
// (the values hold no spaces).
func expand(s string, env map[string]string) string {
	s = strings.NewReplacer(`"`, "", "'", "").Replace(s)
	return shellVar.ReplaceAllStringFunc(s, func(v string) string {
		name := shellVar.FindStringSubmatch(v)[1]
		if val, ok := env[name]; ok {
			return val
		}
		return "x.bundle"
	})
}

func findCommand(cmds [][]string, name string) []string {
	for _, c := range cmds {
		if len(c) > 0 && c[0] == name {
			return c
		}
	}
	return nil
}

func flagValue(args []string, name string) string {
	for i, a := range args {
		if (a == "--"+name || a == "-"+name) && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// forLoop matches a shell loop over a glob.
var forLoop = regexp.MustCompile(`for \w+ in ([^;\n]+);`)

// loopGlob is the glob the replay job's loop runs over.
func loopGlob(lines []string, env map[string]string) string {
	for _, l := range lines {
		if m := forLoop.FindStringSubmatch(l); m != nil {
			return strings.TrimSpace(expand(m[1], env))
		}
	}
	return ""
}

func globMatch(glob, p string) bool {
	ok, err := path.Match(path.Clean(glob), path.Clean(p))
	return err == nil && ok
}

// goModVersion is the go directive of go.mod.
func goModVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	return string(m[1])
}

// GitHub Actions.

type ghWorkflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]ghJob  `yaml:"jobs"`
}

type ghJob struct {
	Needs yaml.Node `yaml:"needs"`
	If    string    `yaml:"if"`
	Steps []ghStep  `yaml:"steps"`
}

type ghStep struct {
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	With map[string]string `yaml:"with"`
}

func (j ghJob) lines() []string {
	var out []string
	for _, s := range j.Steps {
		out = append(out, strings.Split(s.Run, "\n")...)
	}
	return out
}

func (j ghJob) step(uses string, with func(map[string]string) bool) *ghStep {
	for i, s := range j.Steps {
		if strings.HasPrefix(s.Uses, uses+"@") && (with == nil || with(s.With)) {
			return &j.Steps[i]
		}
	}
	return nil
}

func parseGitHub(t *testing.T, data []byte, goVersion string) ciPlan {
	t.Helper()
	var w ghWorkflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	runJob, replayJob := w.Jobs["run"], w.Jobs["replay"]
	for name, j := range map[string]ghJob{"run": runJob, "replay": replayJob} {
		if s := j.step("actions/setup-go", nil); s == nil || s.With["go-version-file"] != "go.mod" {
			t.Errorf("the %s job does not set up Go from go.mod", name)
		}
	}
	p := ciPlan{env: w.Env, runJob: runJob.lines(), replayJob: replayJob.lines()}
	if s := runJob.step("mikepenz/action-junit-report", nil); s != nil && s.If == "always()" {
		p.junit = s.With["report_paths"]
	}
	upload := runJob.step("actions/upload-artifact", func(w map[string]string) bool { return strings.Contains(w["path"], ".bundle") })
	if upload != nil {
		p.kept = strings.Fields(upload.With["path"])
		p.keptOnFailure = upload.If == "failure()" || upload.If == "always()"
	}
	var needs []string
	runJobNeeded := replayJob.Needs.Decode(&needs) == nil && slices.Contains(needs, "run")
	if !runJobNeeded {
		var one string
		runJobNeeded = replayJob.Needs.Decode(&one) == nil && one == "run"
	}
	download := replayJob.step("actions/download-artifact", nil)
	p.replayAfterFailure = runJobNeeded && replayJob.If == "failure()" && download != nil && upload != nil &&
		download.With["name"] == upload.With["name"]
	// upload-artifact keeps paths below the glob's fixed part;
	// download-artifact puts them below its path.
	p.landed = func(b string) string {
		if download == nil || len(p.kept) == 0 {
			return ""
		}
		root := p.kept[0][:strings.IndexAny(p.kept[0], "*?[")]
		return path.Join(download.With["path"], strings.TrimPrefix(b, root))
	}
	return p
}

// GitLab CI.

type glFile struct {
	Stages    []string          `yaml:"stages"`
	Variables map[string]string `yaml:"variables"`
	Image     string            `yaml:"image"`
}

type glJob struct {
	Stage  string   `yaml:"stage"`
	Script []string `yaml:"script"`
	When   string   `yaml:"when"`
	Needs  []struct {
		Job       string `yaml:"job"`
		Artifacts bool   `yaml:"artifacts"`
	} `yaml:"needs"`
	Artifacts struct {
		When    string   `yaml:"when"`
		Paths   []string `yaml:"paths"`
		Reports struct {
			JUnit string `yaml:"junit"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

func (j glJob) lines() []string {
	var out []string
	for _, s := range j.Script {
		out = append(out, strings.Split(s, "\n")...)
	}
	return out
}

func parseGitLab(t *testing.T, data []byte, goVersion string) ciPlan {
	t.Helper()
	var f glFile
	var jobs map[string]glJob
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var all map[string]yaml.Node
	if err := yaml.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	jobs = map[string]glJob{}
	for name, n := range all {
		if slices.Contains([]string{"stages", "variables", "image", "default", "include", "workflow"}, name) {
			continue
		}
		var j glJob
		if err := n.Decode(&j); err != nil {
			t.Fatalf("job %s: %v", name, err)
		}
		jobs[name] = j
	}
	if want := "golang:" + goVersion + "-"; !strings.HasPrefix(f.Image, want) {
		t.Errorf("image %q, want %s* (go.mod's Go)", f.Image, want)
	}
	runJob, replayJob := jobs["multiverse-run"], jobs["multiverse-replay"]
	p := ciPlan{env: f.Variables, runJob: runJob.lines(), replayJob: replayJob.lines(), junit: runJob.Artifacts.Reports.JUnit}
	p.kept = runJob.Artifacts.Paths
	p.keptOnFailure = runJob.Artifacts.When == "always" || runJob.Artifacts.When == "on_failure"
	needsRun := slices.ContainsFunc(replayJob.Needs, func(n struct {
		Job       string `yaml:"job"`
		Artifacts bool   `yaml:"artifacts"`
	}) bool {
		return n.Job == "multiverse-run" && n.Artifacts
	})
	later := slices.Index(f.Stages, replayJob.Stage) > slices.Index(f.Stages, runJob.Stage) && slices.Index(f.Stages, runJob.Stage) >= 0
	p.replayAfterFailure = needsRun && later && replayJob.When == "on_failure"
	p.landed = func(b string) string { return b } // artifacts come back where they were
	return p
}
