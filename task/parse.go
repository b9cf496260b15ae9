package task

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// MaxFileSize bounds task files; larger files are refused unread.
const MaxFileSize = 1 << 20

// Load reads, parses and validates the task file at path: a regular file
// of at most MaxFileSize bytes (a FIFO or a device is refused unread).
func Load(path string) (*Task, error) {
	data, err := readRegular(path, MaxFileSize)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read task file: %v", err)}
	}
	return Parse(path, data)
}

// Parse parses and validates a task from data; file names it in errors.
func Parse(file string, data []byte) (*Task, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("task file is larger than %d bytes", MaxFileSize)}
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Msg: "task file is empty"}
		}
		return nil, yamlError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: file, Line: extra.Line, Msg: "task file holds more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(file, err)
	}
	if err := checkBounds(file, &root); err != nil {
		return nil, err
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, &Error{File: file, Msg: "task file is empty"}
		}
		doc = doc.Content[0]
	}
	d := &decoder{file: file}
	t := &Task{file: file, root: doc}
	d.task(doc, t)
	if d.err != nil {
		return nil, d.err
	}
	v := &validator{file: file, root: doc}
	v.defaults(t)
	v.validate(t)
	if v.err != nil {
		return nil, v.err
	}
	if !t.SeedSet {
		t.Seed = seedFromDigest(t.Digest())
	}
	return t, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func yamlError(file string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		var line int
		fmt.Sscanf(m[1], "%d", &line)
		msg := m[2]
		if strings.HasPrefix(msg, "did not find expected") {
			// The YAML parser reports these at the 0-based line where the
			// unclosed construct starts.
			line++
			msg += " (the construct starting on this line is not closed)"
		}
		return &Error{File: file, Line: line, Msg: "malformed YAML: " + msg}
	}
	return &Error{File: file, Msg: "malformed YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

func (d *decoder) task(n *yaml.Node, t *Task) {
	t.Inputs = map[string]Input{}
	d.fields(n, "", map[string]func(*yaml.Node, string){
		"version":     func(v *yaml.Node, p string) { d.integer(v, p, &t.Version) },
		"name":        func(v *yaml.Node, p string) { d.str(v, p, &t.Name) },
		"description": func(v *yaml.Node, p string) { d.str(v, p, &t.Description) },
		"start_url":   func(v *yaml.Node, p string) { d.str(v, p, &t.StartURL) },
		"seed": func(v *yaml.Node, p string) {
			d.uint64(v, p, &t.Seed)
			t.SeedSet = true
		},
		"goal":   func(v *yaml.Node, p string) { d.goal(v, p, &t.Goal) },
		"inputs": func(v *yaml.Node, p string) { d.inputs(v, p, t.Inputs) },
		"budgets": func(v *yaml.Node, p string) {
			b := &t.Budgets
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"wall_clock":        func(v *yaml.Node, p string) { d.duration(v, p, &b.WallClock) },
				"branch_wall_clock": func(v *yaml.Node, p string) { d.duration(v, p, &b.BranchWallClock) },
				"steps_per_branch":  func(v *yaml.Node, p string) { d.integer(v, p, &b.StepsPerBranch) },
				"total_branches":    func(v *yaml.Node, p string) { d.integer(v, p, &b.TotalBranches) },
				"cost":              func(v *yaml.Node, p string) { d.float(v, p, &b.Cost) },
				"action_timeout":    func(v *yaml.Node, p string) { d.duration(v, p, &b.ActionTimeout) },
			})
		},
		"prices": func(v *yaml.Node, p string) {
			t.Prices = map[string]float64{}
			handlers := map[string]func(*yaml.Node, string){}
			for _, k := range actionKinds {
				k := k
				handlers[k] = func(v *yaml.Node, p string) {
					var f float64
					d.float(v, p, &f)
					t.Prices[k] = f
				}
			}
			d.fields(v, p, handlers)
		},
		"search": func(v *yaml.Node, p string) {
			s := &t.Search
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"strategy":       func(v *yaml.Node, p string) { d.str(v, p, &s.Strategy) },
				"beam_width":     func(v *yaml.Node, p string) { d.integer(v, p, &s.BeamWidth) },
				"min_beam_width": func(v *yaml.Node, p string) { d.integer(v, p, &s.MinBeamWidth) },
				"max_children":   func(v *yaml.Node, p string) { d.integer(v, p, &s.MaxChildren) },
				"stall_limit":    func(v *yaml.Node, p string) { d.integer(v, p, &s.StallLimit) },
				"diversity":      func(v *yaml.Node, p string) { d.float(v, p, &s.Diversity) },
				"workers":        func(v *yaml.Node, p string) { d.integer(v, p, &s.Workers) },
				"selection":      func(v *yaml.Node, p string) { d.str(v, p, &s.Selection) },
				"minimize": func(v *yaml.Node, p string) {
					var b bool
					d.boolean(v, p, &b)
					s.Minimize = &b
				},
				"learning": func(v *yaml.Node, p string) {
					var b bool
					d.boolean(v, p, &b)
					s.Learning = &b
				},
			})
		},
		"weights": func(v *yaml.Node, p string) {
			w := &t.Weights
			*w = scoring.DefaultWeights()
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"progress":   func(v *yaml.Node, p string) { d.float(v, p, &w.Progress) },
				"confidence": func(v *yaml.Node, p string) { d.float(v, p, &w.Confidence) },
				"risk":       func(v *yaml.Node, p string) { d.float(v, p, &w.Risk) },
				"cost":       func(v *yaml.Node, p string) { d.float(v, p, &w.Cost) },
				"time":       func(v *yaml.Node, p string) { d.float(v, p, &w.Time) },
				"latency":    func(v *yaml.Node, p string) { d.float(v, p, &w.Latency) },
			})
		},
		"risk_patterns": func(v *yaml.Node, p string) { d.strings(v, p, &t.RiskPatterns) },
		"explore": func(v *yaml.Node, p string) {
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"allow":   func(v *yaml.Node, p string) { t.Explore.Allow = d.requestPatterns(v, p) },
				"origins": func(v *yaml.Node, p string) { d.strings(v, p, &t.Explore.Origins) },
			})
		},
		"capture": func(v *yaml.Node, p string) {
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"screenshots": func(v *yaml.Node, p string) { d.str(v, p, &t.Capture.Screenshots) },
			})
		},
		"dead_ends": func(v *yaml.Node, p string) {
			t.DeadEnds = []scoring.Detector{}
			d.list(v, p, func(_ int, v *yaml.Node, p string) {
				var det scoring.Detector
				d.fields(v, p, map[string]func(*yaml.Node, string){
					"name":  func(v *yaml.Node, p string) { d.str(v, p, &det.Name) },
					"text":  func(v *yaml.Node, p string) { d.str(v, p, &det.Text) },
					"url":   func(v *yaml.Node, p string) { d.str(v, p, &det.URL) },
					"title": func(v *yaml.Node, p string) { d.str(v, p, &det.Title) },
				})
				t.DeadEnds = append(t.DeadEnds, det)
			})
		},
		"environment": func(v *yaml.Node, p string) { d.environment(v, p, &t.Environment) },
		"planner":     func(v *yaml.Node, p string) { d.planner(v, p, &t.Planner) },
		"commit": func(v *yaml.Node, p string) {
			t.Commit = &Commit{}
			d.commit(v, p, t.Commit)
		},
		"extract": func(v *yaml.Node, p string) { t.Extract = d.fieldMap(v, p) },
		"auth": func(v *yaml.Node, p string) {
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"storage_state": func(v *yaml.Node, p string) {
					in := &Input{}
					d.fields(v, p, map[string]func(*yaml.Node, string){
						"secret_env":  func(v *yaml.Node, p string) { d.str(v, p, &in.SecretEnv) },
						"secret_file": func(v *yaml.Node, p string) { d.str(v, p, &in.SecretFile) },
					})
					t.Auth.StorageState = in
				},
				"login": func(v *yaml.Node, p string) {
					d.list(v, p, func(_ int, v *yaml.Node, p string) { t.Auth.Login = append(t.Auth.Login, d.action(v, p)) })
				},
				"login_page": func(v *yaml.Node, p string) {
					pr := d.predicate(v, p, false)
					pr.Name = LoginPagePredicate
					t.Auth.LoginPage = &pr
				},
			})
		},
	})
}

var actionKinds = []string{branch.KindNavigate, branch.KindClick, branch.KindType, branch.KindSelect,
	branch.KindCheck, branch.KindFocus, branch.KindKeyPress, branch.KindHover, branch.KindScroll, branch.KindWaitFor, branch.KindEval, branch.KindSet}

func (d *decoder) goal(n *yaml.Node, path string, g *Goal) {
	d.fields(n, path, map[string]func(*yaml.Node, string){
		"text":       func(v *yaml.Node, p string) { d.str(v, p, &g.Text) },
		"milestones": func(v *yaml.Node, p string) { g.Milestones = d.predicates(v, p) },
		"success":    func(v *yaml.Node, p string) { g.Success = d.predicates(v, p) },
		"failure":    func(v *yaml.Node, p string) { g.Failure = d.predicates(v, p) },
	})
}

func (d *decoder) predicates(n *yaml.Node, path string) []scoring.Predicate {
	out := []scoring.Predicate{}
	d.list(n, path, func(_ int, v *yaml.Node, p string) {
		out = append(out, d.predicate(v, p, true))
	})
	return out
}

// predicate decodes a predicate mapping. named allows name and weight.
func (d *decoder) predicate(n *yaml.Node, path string, named bool) scoring.Predicate {
	if d.schema != nil {
		name := "predicate"
		if named {
			name = "goal_predicate"
		}
		d.schema.define(name, func() { d.predicateBody(n, name, named) })
		return scoring.Predicate{}
	}
	return d.predicateBody(n, path, named)
}

func (d *decoder) predicateBody(n *yaml.Node, path string, named bool) scoring.Predicate {
	var pr scoring.Predicate
	textMatch := func(dst **scoring.TextMatch, allowShort bool) func(*yaml.Node, string) {
		return func(v *yaml.Node, p string) {
			m := &scoring.TextMatch{}
			if v.Kind == yaml.ScalarNode && allowShort {
				d.str(v, p, &m.Matches)
				*dst = m
				return
			}
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"selector": func(v *yaml.Node, p string) { d.str(v, p, &m.Selector) },
				"equals":   func(v *yaml.Node, p string) { d.str(v, p, &m.Equals) },
				"contains": func(v *yaml.Node, p string) { d.str(v, p, &m.Contains) },
				"matches":  func(v *yaml.Node, p string) { d.str(v, p, &m.Matches) },
			})
			*dst = m
		}
	}
	handlers := map[string]func(*yaml.Node, string){
		scoring.PredURLMatches:   func(v *yaml.Node, p string) { d.str(v, p, &pr.URLMatches) },
		scoring.PredTitleMatches: func(v *yaml.Node, p string) { d.str(v, p, &pr.TitleMatches) },
		scoring.PredVisible:      func(v *yaml.Node, p string) { d.str(v, p, &pr.Visible) },
		scoring.PredHidden:       func(v *yaml.Node, p string) { d.str(v, p, &pr.Hidden) },
		scoring.PredText:         textMatch(&pr.Text, true),
		scoring.PredValue:        textMatch(&pr.Value, false),
		scoring.PredCount: func(v *yaml.Node, p string) {
			c := &scoring.CountMatch{}
			if v.Kind == yaml.ScalarNode {
				d.str(v, p, &c.Selector)
				pr.Count = c
				return
			}
			intp := func(dst **int) func(*yaml.Node, string) {
				return func(v *yaml.Node, p string) {
					var x int
					d.integer(v, p, &x)
					*dst = &x
				}
			}
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"selector": func(v *yaml.Node, p string) { d.str(v, p, &c.Selector) },
				"min":      intp(&c.Min),
				"max":      intp(&c.Max),
				"equals":   intp(&c.Equals),
			})
			pr.Count = c
		},
		scoring.PredRequestSeen: func(v *yaml.Node, p string) {
			r := &scoring.RequestMatch{}
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"method": func(v *yaml.Node, p string) { d.str(v, p, &r.Method) },
				"url":    func(v *yaml.Node, p string) { d.str(v, p, &r.URL) },
				"status": func(v *yaml.Node, p string) { d.str(v, p, &r.Status) },
			})
			pr.RequestSeen = r
		},
		scoring.PredJS: func(v *yaml.Node, p string) { d.str(v, p, &pr.JS) },
		scoring.PredAll: func(v *yaml.Node, p string) {
			pr.All = []scoring.Predicate{}
			d.list(v, p, func(_ int, v *yaml.Node, p string) { pr.All = append(pr.All, d.predicate(v, p, false)) })
		},
		scoring.PredAny: func(v *yaml.Node, p string) {
			pr.Any = []scoring.Predicate{}
			d.list(v, p, func(_ int, v *yaml.Node, p string) { pr.Any = append(pr.Any, d.predicate(v, p, false)) })
		},
		scoring.PredNot: func(v *yaml.Node, p string) {
			x := d.predicate(v, p, false)
			pr.Not = &x
		},
	}
	if named {
		handlers["name"] = func(v *yaml.Node, p string) { d.str(v, p, &pr.Name) }
		handlers["weight"] = func(v *yaml.Node, p string) { d.float(v, p, &pr.Weight) }
	}
	if n.Kind == yaml.MappingNode {
		// Name the unknown predicate kind precisely, before the generic
		// unknown-field message.
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if _, ok := handlers[k.Value]; !ok {
				d.fail(k, joinPath(path, k.Value), "unknown predicate kind or field (predicate kinds: %s)", strings.Join(scoring.Kinds, ", "))
				return pr
			}
		}
	}
	d.fields(n, path, handlers)
	return pr
}

func (d *decoder) inputs(n *yaml.Node, path string, dst map[string]Input) {
	if d.schema != nil {
		d.schema.mapOf(path, func(v *yaml.Node, p string) { d.input(v, p, &Input{}) })
		return
	}
	if !d.ok() {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "must be a mapping of input names to values, found %s", kindName(n))
		return
	}
	for i := 0; i+1 < len(n.Content) && d.ok(); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		p := joinPath(path, k.Value)
		if _, dup := dst[k.Value]; dup {
			d.fail(k, p, "duplicate input")
			return
		}
		var in Input
		d.input(v, p, &in)
		dst[k.Value] = in
	}
}

// input decodes one input: a value, or {value|secret_env|secret_file, match}.
func (d *decoder) input(v *yaml.Node, p string, in *Input) {
	if v.Kind == yaml.ScalarNode {
		d.str(v, p, &in.Value)
		return
	}
	d.fields(v, p, map[string]func(*yaml.Node, string){
		"value":       func(v *yaml.Node, p string) { d.str(v, p, &in.Value) },
		"secret_env":  func(v *yaml.Node, p string) { d.str(v, p, &in.SecretEnv) },
		"secret_file": func(v *yaml.Node, p string) { d.str(v, p, &in.SecretFile) },
		"match":       func(v *yaml.Node, p string) { d.str(v, p, &in.Match) },
	})
}

func (d *decoder) environment(n *yaml.Node, path string, e *Environment) {
	d.fields(n, path, map[string]func(*yaml.Node, string){
		"viewport": func(v *yaml.Node, p string) {
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"width":  func(v *yaml.Node, p string) { d.integer(v, p, &e.Viewport.Width) },
				"height": func(v *yaml.Node, p string) { d.integer(v, p, &e.Viewport.Height) },
			})
		},
		"device_scale_factor": func(v *yaml.Node, p string) { d.float(v, p, &e.DeviceScaleFactor) },
		"locale":              func(v *yaml.Node, p string) { d.str(v, p, &e.Locale) },
		"timezone":            func(v *yaml.Node, p string) { d.str(v, p, &e.Timezone) },
		"user_agent":          func(v *yaml.Node, p string) { d.str(v, p, &e.UserAgent) },
		"clock": func(v *yaml.Node, p string) {
			var s string
			d.str(v, p, &s)
			if !d.ok() {
				return
			}
			c, err := time.Parse(time.RFC3339, s)
			if err != nil {
				d.fail(v, p, "must be an RFC 3339 time such as 2026-01-01T09:00:00Z, found %q", s)
				return
			}
			e.Clock = c.UTC()
		},
		"step_advance": func(v *yaml.Node, p string) { d.duration(v, p, &e.StepAdvance) },
		"headers": func(v *yaml.Node, p string) {
			e.Headers = map[string]Input{}
			d.inputs(v, p, e.Headers)
		},
		"ignore_https_errors": func(v *yaml.Node, p string) { d.boolean(v, p, &e.IgnoreHTTPSErrors) },
	})
}

// fieldMap reads a mapping of names to a selector or {selector, attr},
// in file order.
func (d *decoder) fieldMap(v *yaml.Node, p string) []IntentField {
	if d.schema != nil {
		d.schema.mapOf(p, func(v *yaml.Node, p string) { d.field(v, p, &IntentField{}) })
		return nil
	}
	if v.Kind != yaml.MappingNode {
		d.fail(v, p, "must be a mapping of field names to {selector, attr}, found %s", kindName(v))
		return nil
	}
	var out []IntentField
	for i := 0; i+1 < len(v.Content) && d.ok(); i += 2 {
		k, fv := v.Content[i], resolve(v.Content[i+1])
		f := IntentField{Name: k.Value}
		d.field(fv, joinPath(p, k.Value), &f)
		out = append(out, f)
	}
	return out
}

func (d *decoder) commit(n *yaml.Node, path string, c *Commit) {
	d.fields(n, path, map[string]func(*yaml.Node, string){
		"boundary":      func(v *yaml.Node, p string) { c.Boundary = d.predicate(v, p, false) },
		"site":          func(v *yaml.Node, p string) { d.str(v, p, &c.Site) },
		"flow":          func(v *yaml.Node, p string) { d.str(v, p, &c.Flow) },
		"intent":        func(v *yaml.Node, p string) { c.Intent = d.fieldMap(v, p) },
		"preconditions": func(v *yaml.Node, p string) { c.Preconditions = d.predicates(v, p) },
		"action":        func(v *yaml.Node, p string) { c.Action = d.action(v, p) },
		"idempotency": func(v *yaml.Node, p string) {
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"form_field": func(v *yaml.Node, p string) { d.str(v, p, &c.Idempotency.FormField) },
				"header":     func(v *yaml.Node, p string) { d.str(v, p, &c.Idempotency.Header) },
			})
		},
		"guard": func(v *yaml.Node, p string) { c.Guard = d.requestPatterns(v, p) },
		"confirm": func(v *yaml.Node, p string) {
			cf := &c.Confirm
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"success": func(v *yaml.Node, p string) { cf.Success = d.predicate(v, p, false) },
				"refused": func(v *yaml.Node, p string) { cf.Refused = d.predicate(v, p, false) },
				"token":   func(v *yaml.Node, p string) { d.field(v, p, &cf.Token) },
				"invoice": func(v *yaml.Node, p string) {
					d.fields(v, p, map[string]func(*yaml.Node, string){
						"link":     func(v *yaml.Node, p string) { d.str(v, p, &cf.Invoice.Link) },
						"selector": func(v *yaml.Node, p string) { d.str(v, p, &cf.Invoice.Selector) },
					})
				},
				"probe": func(v *yaml.Node, p string) {
					d.fields(v, p, map[string]func(*yaml.Node, string){
						"url":  func(v *yaml.Node, p string) { d.str(v, p, &cf.Probe.URL) },
						"json": func(v *yaml.Node, p string) { d.str(v, p, &cf.Probe.JSON) },
					})
				},
				"timeout": func(v *yaml.Node, p string) { d.duration(v, p, &cf.Timeout) },
			})
		},
		"nonce": func(v *yaml.Node, p string) { d.str(v, p, &c.Nonce) },
		"form_body": func(v *yaml.Node, p string) {
			var b bool
			d.boolean(v, p, &b)
			c.FormBody = &b
		},
		"volatile":  func(v *yaml.Node, p string) { d.strings(v, p, &c.Volatile) },
		"postcheck": func(v *yaml.Node, p string) { c.Postcheck = d.predicates(v, p) },
		"compensate": func(v *yaml.Node, p string) {
			cp := &Compensate{}
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"navigate": func(v *yaml.Node, p string) { d.str(v, p, &cp.Navigate) },
				"action":   func(v *yaml.Node, p string) { cp.Action = d.action(v, p) },
				"confirm":  func(v *yaml.Node, p string) { cp.Confirm = d.predicate(v, p, false) },
				"idempotency": func(v *yaml.Node, p string) {
					cp.Idempotency = &Idempotency{}
					d.fields(v, p, map[string]func(*yaml.Node, string){
						"form_field": func(v *yaml.Node, p string) { d.str(v, p, &cp.Idempotency.FormField) },
						"header":     func(v *yaml.Node, p string) { d.str(v, p, &cp.Idempotency.Header) },
					})
				},
				"timeout": func(v *yaml.Node, p string) { d.duration(v, p, &cp.Timeout) },
			})
			c.Compensate = cp
		},
		"cas": func(v *yaml.Node, p string) {
			c.CAS = &CAS{}
			d.fields(v, p, map[string]func(*yaml.Node, string){
				"selector": func(v *yaml.Node, p string) { d.str(v, p, &c.CAS.Selector) },
				"attr":     func(v *yaml.Node, p string) { d.str(v, p, &c.CAS.Attr) },
				"header":   func(v *yaml.Node, p string) { d.str(v, p, &c.CAS.Header) },
			})
		},
	})
}

// field decodes {selector, attr} or a bare selector string.
func (d *decoder) field(n *yaml.Node, path string, f *IntentField) {
	if n.Kind == yaml.ScalarNode {
		d.str(n, path, &f.Selector)
		return
	}
	d.fields(n, path, map[string]func(*yaml.Node, string){
		"selector": func(v *yaml.Node, p string) { d.str(v, p, &f.Selector) },
		"attr":     func(v *yaml.Node, p string) { d.str(v, p, &f.Attr) },
	})
}

// action decodes {click: target}, {type: {target..., value|input}} and the
// like: one key naming the kind.
func (d *decoder) action(n *yaml.Node, path string) branch.Action {
	var a branch.Action
	if d.schema != nil {
		d.actionSchema()
		return a
	}
	if !d.ok() {
		return a
	}
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		d.fail(n, path, "must be a mapping with exactly one action kind (%s)", strings.Join(actionKinds, ", "))
		return a
	}
	k, v := n.Content[0], resolve(n.Content[1])
	p := joinPath(path, k.Value)
	a.Kind = k.Value
	if !branch.KnownKind(a.Kind) {
		d.fail(k, p, "unknown action kind (known: %s)", strings.Join(actionKinds, ", "))
		return a
	}
	d.actionValue(a.Kind, v, p, &a)
	return a
}

// actionValue decodes what follows an action's kind: a URL, a value, a
// target's text, or a mapping of target, value and input.
func (d *decoder) actionValue(kind string, v *yaml.Node, p string, a *branch.Action) {
	switch kind {
	case branch.KindNavigate:
		d.str(v, p, &a.URL)
		return
	case branch.KindKeyPress, branch.KindEval, branch.KindScroll:
		if v.Kind == yaml.ScalarNode {
			d.str(v, p, &a.Value)
			return
		}
	}
	t := &branch.Target{}
	if v.Kind == yaml.ScalarNode {
		d.str(v, p, &t.Text)
		a.Target = t
		return
	}
	d.fields(v, p, map[string]func(*yaml.Node, string){
		"testid":     func(v *yaml.Node, p string) { d.str(v, p, &t.TestID) },
		"aria_label": func(v *yaml.Node, p string) { d.str(v, p, &t.AriaLabel) },
		"role":       func(v *yaml.Node, p string) { d.str(v, p, &t.Role) },
		"name":       func(v *yaml.Node, p string) { d.str(v, p, &t.Name) },
		"id":         func(v *yaml.Node, p string) { d.str(v, p, &t.ID) },
		"field":      func(v *yaml.Node, p string) { d.str(v, p, &t.Field) },
		"text":       func(v *yaml.Node, p string) { d.str(v, p, &t.Text) },
		"css":        func(v *yaml.Node, p string) { d.str(v, p, &t.CSS) },
		"value":      func(v *yaml.Node, p string) { d.str(v, p, &a.Value) },
		"input":      func(v *yaml.Node, p string) { d.str(v, p, &a.Input) },
	})
	a.Target = t
}

// origin returns scheme://host[:port] of a URL string, "" if unparsable.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// defaultName derives a task name from its file name.
func defaultName(file string) string {
	base := filepath.Base(file)
	return strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
}

// ParseAction reads one action in the task file's form, e.g.
// `{click: {role: link, name: Annual}}` or `{type: {field: seats, value: "12"}}`;
// name says where it came from in errors (a flag, say).
func ParseAction(name, src string) (branch.Action, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return branch.Action{}, yamlError(name, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return branch.Action{}, &Error{File: name, Msg: "want one action, e.g. {click: {text: Annual}}"}
	}
	d := &decoder{file: name}
	a := d.action(resolve(doc.Content[0]), "action")
	if d.err != nil {
		return branch.Action{}, d.err
	}
	return a, nil
}

// requestPatterns reads a list of {method, url} request patterns.
func (d *decoder) requestPatterns(n *yaml.Node, path string) []RequestPattern {
	var out []RequestPattern
	d.list(n, path, func(_ int, v *yaml.Node, p string) {
		var r RequestPattern
		d.fields(v, p, map[string]func(*yaml.Node, string){
			"method": func(v *yaml.Node, p string) { d.str(v, p, &r.Method) },
			"url":    func(v *yaml.Node, p string) { d.str(v, p, &r.URL) },
		})
		out = append(out, r)
	})
	return out
}
