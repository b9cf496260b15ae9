package task

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Fallbacks a task's planner can name: what a question the model's
// endpoint does not answer leaves.
const (
	// FallbackNone stops the run (the default).
	FallbackNone = "none"
	// FallbackHeuristic keeps the heuristic's order for that question and
	// goes on.
	FallbackHeuristic = "heuristic"
)

// PlannerProfiles are the word profiles planner.profiles can name (the
// planner's word data holds one entry per name).
var PlannerProfiles = []string{"purchase"}

// Proposers a task's planner can name.
const (
	ProposerHeuristic = "heuristic"
	ProposerLLM       = "llm"
)

// Planner says how the search ranks a page's candidate actions: by the
// word-overlap heuristic alone (the default), or by a language model
// asked through an OpenAI-compatible chat-completions endpoint, the
// heuristic's candidates being the menu it chooses from.
type Planner struct {
	// Proposer is "heuristic" or "llm".
	Proposer string `json:"proposer"`
	// Model, BaseURL: the model route (BaseURL is the API root, e.g.
	// http://127.0.0.1:11434/v1).
	Model   string `json:"model,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	// APIKey is a secret reference (secret_env or secret_file); none for
	// an endpoint that wants no key.
	APIKey *Input `json:"api_key,omitempty"`
	// Decoding parameters: Temperature defaults to 0; Seed is sent only
	// when set; MaxTokens defaults to DefaultMaxTokens.
	Temperature float64 `json:"temperature"`
	Seed        *int64  `json:"seed,omitempty"`
	MaxTokens   int     `json:"max_tokens,omitempty"`
	// Timeout bounds one call (DefaultModelTimeout); a call that runs
	// over is a question the endpoint did not answer (see Fallback).
	Timeout Duration `json:"timeout,omitempty"`
	// Fallback says what a question the endpoint does not answer
	// (unreachable, over Timeout, an error status after retries) does:
	// "none" (the default) stops the run, "heuristic" keeps the
	// heuristic's order for it and goes on.
	Fallback string `json:"fallback,omitempty"`
	// PricePrompt1K and PriceCompletion1K are what a thousand prompt and
	// completion tokens cost, in the task's cost units: charged to
	// budgets.cost.
	PricePrompt1K     float64 `json:"price_prompt_1k,omitempty"`
	PriceCompletion1K float64 `json:"price_completion_1k,omitempty"`
	// Profiles name the word profiles the heuristic reads the page with
	// beyond its generic words (PlannerProfiles): "purchase" adds the
	// words of buying flows (pricing, checkout, cart) and searches a
	// site for its pricing when the goal buys. None by default.
	Profiles []string `json:"profiles,omitempty"`
	// Cassettes is the cassette directory, relative to the task file;
	// by default TASKFILE.cassettes beside it (see CassetteDir).
	Cassettes string `json:"cassettes,omitempty"`
}

// Defaults of a model planner.
const (
	DefaultMaxTokens    = 512
	DefaultModelTimeout = Duration(30 * time.Second)
)

// UsesModel reports whether the task's planner asks a language model.
func (t *Task) UsesModel() bool { return t.Planner.Proposer == ProposerLLM }

// CassetteDir is where the task's model answers are recorded and
// replayed from: planner.cassettes resolved against the task file's
// directory, or TASKFILE.cassettes beside the task file (without its
// extension).
func (t *Task) CassetteDir() string {
	dir := filepath.Dir(t.file)
	if c := t.Planner.Cassettes; c != "" {
		if filepath.IsAbs(c) {
			return c
		}
		return filepath.Join(dir, c)
	}
	base := filepath.Base(t.file)
	if t.file == "" {
		base = t.Name
	}
	return filepath.Join(dir, strings.TrimSuffix(base, filepath.Ext(base))+".cassettes")
}

func (d *decoder) planner(n *yaml.Node, path string, p *Planner) {
	d.fields(n, path, map[string]func(*yaml.Node, string){
		"proposer": func(v *yaml.Node, p2 string) { d.str(v, p2, &p.Proposer) },
		"model":    func(v *yaml.Node, p2 string) { d.str(v, p2, &p.Model) },
		"base_url": func(v *yaml.Node, p2 string) { d.str(v, p2, &p.BaseURL) },
		"api_key": func(v *yaml.Node, p2 string) {
			in := &Input{}
			d.fields(v, p2, map[string]func(*yaml.Node, string){
				"secret_env":  func(v *yaml.Node, p3 string) { d.str(v, p3, &in.SecretEnv) },
				"secret_file": func(v *yaml.Node, p3 string) { d.str(v, p3, &in.SecretFile) },
			})
			p.APIKey = in
		},
		"temperature": func(v *yaml.Node, p2 string) { d.float(v, p2, &p.Temperature) },
		"seed": func(v *yaml.Node, p2 string) {
			var s int
			d.integer(v, p2, &s)
			s64 := int64(s)
			p.Seed = &s64
		},
		"max_tokens":          func(v *yaml.Node, p2 string) { d.integer(v, p2, &p.MaxTokens) },
		"timeout":             func(v *yaml.Node, p2 string) { d.duration(v, p2, &p.Timeout) },
		"price_prompt_1k":     func(v *yaml.Node, p2 string) { d.float(v, p2, &p.PricePrompt1K) },
		"price_completion_1k": func(v *yaml.Node, p2 string) { d.float(v, p2, &p.PriceCompletion1K) },
		"cassettes":           func(v *yaml.Node, p2 string) { d.str(v, p2, &p.Cassettes) },
		"fallback":            func(v *yaml.Node, p2 string) { d.str(v, p2, &p.Fallback) },
		"profiles":            func(v *yaml.Node, p2 string) { d.strings(v, p2, &p.Profiles) },
	})
}

// plannerDefaults fills in the planner's defaults.
func plannerDefaults(p *Planner) {
	if p.Proposer == "" {
		p.Proposer = ProposerHeuristic
	}
	if p.Proposer != ProposerLLM {
		return
	}
	if p.MaxTokens == 0 {
		p.MaxTokens = DefaultMaxTokens
	}
	if p.Timeout == 0 {
		p.Timeout = DefaultModelTimeout
	}
	if p.Fallback == "" {
		p.Fallback = FallbackNone
	}
}

// FallsBack reports whether a question the model's endpoint does not
// answer leaves the heuristic's order instead of stopping the run.
func (p Planner) FallsBack() bool { return p.Fallback == FallbackHeuristic }

func (v *validator) planner(p *Planner) {
	for i, name := range p.Profiles {
		if !slices.Contains(PlannerProfiles, name) {
			v.fail(fmt.Sprintf("planner.profiles[%d]", i), "must be one of %s, found %q", strings.Join(PlannerProfiles, ", "), name)
		}
	}
	switch p.Proposer {
	case ProposerHeuristic:
		if p.Model != "" || p.BaseURL != "" || p.APIKey != nil || p.Fallback != "" {
			v.fail("planner.proposer", "is heuristic, which asks no model: set proposer: llm to use model, base_url, api_key and fallback")
		}
		return
	case ProposerLLM:
	default:
		v.fail("planner.proposer", "must be heuristic or llm, found %q", p.Proposer)
		return
	}
	if p.Model == "" {
		v.fail("planner.model", "is required with proposer: llm")
	}
	if p.BaseURL == "" {
		v.fail("planner.base_url", "is required with proposer: llm (the API root of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1)")
	} else if u, err := url.Parse(p.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.fail("planner.base_url", "must be an absolute http(s) URL")
	} else if u.User != nil {
		v.fail("planner.base_url", "must not hold credentials: give api_key as a secret reference")
	}
	if k := p.APIKey; k != nil && (k.SecretEnv == "") == (k.SecretFile == "") {
		v.fail("planner.api_key", "set exactly one of secret_env, secret_file")
	}
	if p.Temperature < 0 || p.Temperature > 2 {
		v.fail("planner.temperature", "must be between 0 and 2, found %g", p.Temperature)
	}
	if p.MaxTokens < 0 {
		v.fail("planner.max_tokens", "must not be negative, found %d", p.MaxTokens)
	}
	if p.Timeout < 0 {
		v.fail("planner.timeout", "must not be negative")
	}
	switch p.Fallback {
	case "", FallbackNone, FallbackHeuristic:
	default:
		v.fail("planner.fallback", "must be none (stop the run when the model does not answer) or heuristic (keep the heuristic's order), found %q", p.Fallback)
	}
	if p.PricePrompt1K < 0 {
		v.fail("planner.price_prompt_1k", "must not be negative, found %g", p.PricePrompt1K)
	}
	if p.PriceCompletion1K < 0 {
		v.fail("planner.price_completion_1k", "must not be negative, found %g", p.PriceCompletion1K)
	}
}
