package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/llm/advice"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// ErrModelMiss: a run whose model answers come from cassettes (--llm
// replay) asked a question the cassette does not hold (exit 9).
var ErrModelMiss = errors.New("orchestrator: the model's cassette has no answer")

// ModelMissError names the branch and step whose question the cassette
// could not answer, the question's fingerprint, and why: the cassette
// holds no entry for it (an *llm.MissError, naming the prompt version) or
// its entry does not read (llm.ErrCassette, naming the entry's file).
type ModelMissError struct {
	BranchID    string
	Step        int
	Fingerprint string
	Err         error
}

func (e *ModelMissError) Error() string {
	if errors.Is(e.Err, llm.ErrMiss) {
		return fmt.Sprintf("%v: branch %s, step %d: %v", ErrModelMiss, eventlog.ShortID(e.BranchID), e.Step, e.Err)
	}
	return fmt.Sprintf("%v: branch %s, step %d: the entry of fingerprint %s does not read: %v",
		ErrModelMiss, eventlog.ShortID(e.BranchID), e.Step, e.Fingerprint, e.Err)
}

// Unwrap makes errors.Is(err, ErrModelMiss) hold, and errors.Is(err,
// llm.ErrMiss) or errors.Is(err, llm.ErrCassette) as the cause is.
func (e *ModelMissError) Unwrap() []error { return []error{ErrModelMiss, e.Err} }

// ErrModelDown: the model planner's endpoint did not answer a question
// (unreachable, over planner.timeout, an error status after retries) and
// the task does not say planner.fallback: heuristic (exit 11).
var ErrModelDown = errors.New("orchestrator: the model planner's endpoint did not answer")

// ModelDownError names the branch and step whose question the endpoint
// did not answer, and why (an *llm.NoAnswerError).
type ModelDownError struct {
	BranchID string
	Step     int
	Err      error
}

func (e *ModelDownError) Error() string {
	return fmt.Sprintf("%v: branch %s, step %d: %v; the run stops (set planner.fallback: heuristic to go on in the heuristic's order instead)",
		ErrModelDown, eventlog.ShortID(e.BranchID), e.Step, e.Err)
}

// Unwrap makes errors.Is(err, ErrModelDown) and errors.Is(err,
// llm.ErrNoAnswer) hold.
func (e *ModelDownError) Unwrap() []error { return []error{ErrModelDown, e.Err} }

// modelAdvisor asks the task's language model to rank each expanded
// branch's candidates, through the run's cassette, and records every
// question and answer. The search calls it from the run's goroutine (in
// EndWave, under the context EndWave was given), so it needs no lock.
type modelAdvisor struct {
	r      *run
	caller *llm.Caller
	params advice.Params
	prices [2]float64 // per 1k prompt and completion tokens
	// fallback keeps the heuristic's order for a question the endpoint
	// does not answer (planner.fallback: heuristic).
	fallback bool
	// fatal is a cassette miss or an unreadable entry (replay), or a
	// question the endpoint did not answer without fallback: the run
	// stops after the wave.
	fatal error
}

// modelRoute is the manifest's record of the task's model.
func modelRoute(t *task.Task, mode llm.Mode, cassettes string) *payload.ModelRoute {
	if !t.UsesModel() {
		return nil
	}
	p := t.Planner
	return &payload.ModelRoute{Model: p.Model, BaseURL: p.BaseURL, Temperature: p.Temperature, Seed: p.Seed, MaxTokens: p.MaxTokens,
		PromptVersion: advice.PromptVersion, Mode: string(mode), Cassettes: cassettes}
}

// llmMode is the run's model mode: the flag's, live by default.
func (r *run) llmMode() llm.Mode { return llmMode(r.cfg) }

func llmMode(cfg Config) llm.Mode {
	if cfg.LLM == "" {
		return llm.ModeLive
	}
	return cfg.LLM
}

// cassetteDir is where the run's cassette is.
func (r *run) cassetteDir() string { return cassetteDir(r.cfg) }

// cassetteDir is where a run of cfg records or replays its model's
// answers, absolute so the manifest's record serves a rerun from
// anywhere: the flag's directory, else the task's; "" when the task asks
// no model or the mode is live.
func cassetteDir(cfg Config) string {
	t := cfg.Task
	if !t.UsesModel() || llmMode(cfg) == llm.ModeLive {
		return ""
	}
	dir := cfg.Cassettes
	if dir == "" {
		dir = t.CassetteDir()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// newAdvisor builds the advisor of a task whose planner asks a model;
// nil for the heuristic planner.
func (r *run) newAdvisor() (*modelAdvisor, error) {
	t := r.t
	if !t.UsesModel() {
		return nil, nil
	}
	p := t.Planner
	mode := r.llmMode()
	c := &llm.Caller{Mode: mode, Scrub: func(b []byte) []byte { return r.sc.Body("application/json", b) }}
	if mode != llm.ModeReplay {
		key := ""
		if p.APIKey != nil {
			v, err := p.APIKey.Resolve()
			if err != nil {
				return nil, fmt.Errorf("%w: planner.api_key: %v", task.ErrSecretMissing, err)
			}
			key = v
		}
		c.Client = &llm.Client{BaseURL: p.BaseURL, APIKey: key, Timeout: p.Timeout.D()}
	}
	if mode != llm.ModeLive {
		cas, err := llm.OpenCassette(r.cassetteDir(), mode == llm.ModeRecord) // checkConfig saw a replay's directory
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
		}
		c.Cassette = cas
	}
	r.sum.Model = &ModelInfo{Mode: string(mode)}
	return &modelAdvisor{r: r, caller: c,
		params: advice.Params{Model: p.Model, Temperature: p.Temperature, Seed: p.Seed, MaxTokens: p.MaxTokens},
		prices: [2]float64{p.PricePrompt1K, p.PriceCompletion1K}, fallback: p.FallsBack()}, nil
}

// modelParallel bounds the questions of one wave asked at once.
const modelParallel = 4

// Advise implements planner.Advisor: one question, as a wave of one.
func (a *modelAdvisor) Advise(ctx context.Context, q planner.Query) planner.Advice {
	return a.AdviseAll(ctx, []planner.Query{q})[0]
}

// AdviseAll implements planner.BatchAdvisor: a wave's questions are asked
// concurrently (at most modelParallel at once) and recorded in their
// order, so the log and the decisions are those of asking one by one.
func (a *modelAdvisor) AdviseAll(ctx context.Context, qs []planner.Query) []planner.Advice {
	out := make([]planner.Advice, len(qs))
	if a.fatal != nil || ctx.Err() != nil {
		return out
	}
	type answer struct {
		req llm.Request
		rep *llm.Reply
		err error
	}
	answers := make([]answer, len(qs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, modelParallel)
	for i, q := range qs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			req, rep, err := a.ask(ctx, q)
			answers[i] = answer{req, rep, err}
		}()
	}
	wg.Wait()
	for i, q := range qs {
		if a.fatal != nil {
			break // a miss stops the run: the questions after it are not recorded as asked
		}
		out[i] = a.settle(ctx, q, answers[i].req, answers[i].rep, answers[i].err)
	}
	return out
}

// ask puts q to the model (or its cassette); safe for concurrent use.
func (a *modelAdvisor) ask(ctx context.Context, q planner.Query) (llm.Request, *llm.Reply, error) {
	req := advice.Request(q, a.params)
	rep, err := a.caller.Call(ctx, req)
	return req, rep, err
}

// settle records a question and its answer and turns the answer into
// advice: the model's order, or the heuristic's with the reason why.
func (a *modelAdvisor) settle(ctx context.Context, q planner.Query, req llm.Request, rep *llm.Reply, err error) planner.Advice {
	r := a.r
	if rep == nil { // the request itself does not encode: a bug
		r.rec.add(zeroTime, 0, eventlog.KindError, q.BranchID, map[string]any{"where": "llm request", "error": err.Error()})
		return planner.Advice{}
	}
	reqArt := a.put(ctx, rep.Request)
	r.rec.add(zeroTime, 0, eventlog.KindLLMRequest, q.BranchID, payload.LLMRequest{Step: q.Step, Fingerprint: rep.Fingerprint,
		Model: req.Model, PromptVersion: req.PromptVersion, Mode: string(a.caller.Mode), Menu: len(q.Menu), Fields: len(q.Fields),
		RequestSHA256: reqArt}, artList(reqArt)...)
	resp := payload.LLMResponse{Step: q.Step, Fingerprint: rep.Fingerprint, LatencyMS: rep.Latency.Milliseconds()}
	var adv planner.Advice
	switch {
	case err != nil:
		switch {
		case a.caller.Mode == llm.ModeReplay && (errors.Is(err, llm.ErrMiss) || errors.Is(err, llm.ErrCassette)):
			a.fatal = &ModelMissError{BranchID: q.BranchID, Step: q.Step, Fingerprint: rep.Fingerprint, Err: err}
		case errors.Is(err, llm.ErrNoAnswer) && !a.fallback && ctx.Err() == nil:
			a.fatal = &ModelDownError{BranchID: q.BranchID, Step: q.Step, Err: err}
		}
		resp.Fallback = "heuristic order: " + r.sc.Text(err.Error())
	default:
		resp.Model, resp.FromCassette = rep.Model, rep.FromCassette
		resp.PromptTokens, resp.CompletionTokens = rep.Usage.PromptTokens, rep.Usage.CompletionTokens
		resp.Cost = round6(float64(rep.Usage.PromptTokens)/1000*a.prices[0] + float64(rep.Usage.CompletionTokens)/1000*a.prices[1])
		resp.ResponseSHA256 = a.put(ctx, r.sc.Body("application/json", rep.Body))
		parsed, perr := advice.Parse(rep.Content, q)
		if perr != nil {
			resp.Fallback = "heuristic order: " + r.sc.Text(perr.Error())
		} else {
			adv = parsed
			adv.By = "the model"
			resp.Ranking, resp.Values = adv.Order, len(adv.Values)
		}
		adv.Cost = resp.Cost // the tokens were spent, whatever they said
	}
	r.rec.add(zeroTime, 0, eventlog.KindLLMResponse, q.BranchID, resp, artList(resp.ResponseSHA256)...)
	a.count(err, resp.Fallback != "")
	if resp.Cost > 0 {
		r.rec.add(zeroTime, 0, eventlog.KindBudgetDebit, q.BranchID, map[string]any{"budget": "cost", "what": "model", "cost": resp.Cost})
	}
	return adv
}

// count adds a settled question to the summary's model counts.
func (a *modelAdvisor) count(err error, fellBack bool) {
	m := a.r.sum.Model
	if m == nil {
		return
	}
	m.Asked++
	switch {
	case a.fatal != nil:
	case fellBack:
		m.FellBack++
		if errors.Is(err, llm.ErrNoAnswer) {
			m.Unanswered++
		}
	default:
		m.Answered++
	}
}

// put stores a scrubbed body as an artifact and returns its digest, ""
// when it cannot (the event says so by its absence).
func (a *modelAdvisor) put(ctx context.Context, b []byte) string {
	if len(b) == 0 || a.r.store == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	d, err := a.r.store.Put(ctx, b)
	if err != nil {
		return ""
	}
	return string(d)
}

func artList(d string) []string {
	if d == "" {
		return nil
	}
	return []string{d}
}

func round6(x float64) float64 { return float64(int64(x*1e6+0.5)) / 1e6 }
