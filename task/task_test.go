package task

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLoadExample(t *testing.T) {
	tk, err := Load("../examples/procure-team-plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if tk.Name != "procure-team-plan" || tk.Seed != 7 || !tk.SeedSet {
		t.Fatalf("name/seed: %q %d", tk.Name, tk.Seed)
	}
	if got := len(tk.Goal.Milestones) + len(tk.Goal.Success); got != 7 {
		t.Fatalf("goal predicates = %d, want 7", got)
	}
	if !tk.Goal.Milestones[0].Sticky || tk.Goal.Success[0].Sticky {
		t.Fatal("milestones must be sticky and success predicates not")
	}
	if tk.Commit.Action.Kind != "click" || tk.Commit.Action.Target.Name != "Place order" {
		t.Fatalf("commit action = %+v", tk.Commit.Action)
	}
	if len(tk.Commit.Intent) != 6 || tk.Commit.Intent[4].Attr != "data-amount" {
		t.Fatalf("intent = %+v", tk.Commit.Intent)
	}
	if tk.Budgets.StepsPerBranch != 12 || tk.Environment.Viewport.Width != 1280 {
		t.Fatalf("defaults not applied: %+v %+v", tk.Budgets, tk.Environment)
	}
	if tk.Inputs["seats"].Match == "" {
		t.Fatal("input match default missing")
	}
}

func TestDigestIgnoresOriginAndSearch(t *testing.T) {
	a, err := Load("../examples/procure-team-plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.WithStartURL("http://127.0.0.1:39999/")
	if err != nil {
		t.Fatal(err)
	}
	b.Search.Workers = 1
	b.Budgets.WallClock *= 2
	if a.Digest() != b.Digest() {
		t.Fatal("digest depends on the site's address or on search settings")
	}
	c := *a
	cm := *a.Commit
	cm.Nonce = "second purchase"
	c.Commit = &cm
	if c.Digest() == a.Digest() {
		t.Fatal("digest ignores the commit nonce")
	}
	if got := b.RelativeURL("http://127.0.0.1:39999/pricing?x=1"); got != "{origin}/pricing?x=1" {
		t.Fatalf("RelativeURL = %q", got)
	}
}

// TestBadTasks runs every testdata/bad-*.yaml file and checks the error
// names the line and field written in the file's first comment line:
// "# want: LINE FIELD: substring".
func TestBadTasks(t *testing.T) {
	files, err := filepath.Glob("testdata/bad-*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want := strings.TrimSpace(strings.TrimPrefix(first, "# want:"))
			_, err = Load(f)
			if err == nil {
				t.Fatalf("loaded without error; want %q", want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("not a *task.Error: %T", err)
			}
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not contain %q", err, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			if strings.Contains(err.Error(), "planted-pass") {
				t.Fatalf("error quotes a password: %q", err)
			}
		})
	}
}

// TestAliasBombFailsFast: a few KB of aliases that expand to a billion
// nodes is refused before the decoder walks them, at once.
func TestAliasBombFailsFast(t *testing.T) {
	data, err := os.ReadFile("testdata/bad-alias-bomb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Parse("bomb.yaml", data)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "more than 100000 YAML nodes") {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("parsing a YAML alias bomb did not end within 10s")
	}
}

func TestGoodTasks(t *testing.T) {
	files, _ := filepath.Glob("testdata/good-*.yaml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := Load("testdata/does-not-exist.yaml")
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "does-not-exist.yaml") {
		t.Fatalf("err = %v", err)
	}
}

func TestSecrets(t *testing.T) {
	tk, err := Parse("mem.yaml", []byte(minimal+"inputs:\n  card: {secret_env: MV_TEST_CARD}\n"))
	if err != nil {
		t.Fatal(err)
	}
	d1 := tk.Digest()
	if err := tk.CheckSecrets(); err == nil || !strings.Contains(err.Error(), "MV_TEST_CARD") {
		t.Fatalf("missing secret not reported: %v", err)
	}
	t.Setenv("MV_TEST_CARD", "4111111111111111")
	if err := tk.CheckSecrets(); err != nil {
		t.Fatal(err)
	}
	if v, _ := tk.Inputs["card"].Resolve(); v != "4111111111111111" {
		t.Fatalf("resolve = %q", v)
	}
	if tk.Digest() != d1 || strings.Contains(tk.Digest(), "4111") {
		t.Fatal("digest depends on the secret value")
	}
}

const minimal = `start_url: http://127.0.0.1:8555/
goal:
  success:
    - {name: done, url_matches: /done}
commit:
  boundary: {url_matches: /review}
  intent: {total: '#total'}
  action: {click: {text: Buy}}
  idempotency: {header: Idempotency-Key}
  confirm:
    success: {url_matches: /thanks}
    token: '#order'
`

func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	if b, err := os.ReadFile("../examples/procure-team-plan.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("goal: [1, 2\n"))
	f.Add([]byte("start_url: &a x\ngoal: *a\n"))
	for _, bad := range []string{"testdata/bad-alias-bomb.yaml", "testdata/bad-alias-cycle.yaml"} {
		if b, err := os.ReadFile(bad); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if tk.Digest() == "" {
			t.Fatal("valid task with empty digest")
		}
	})
}

// TestSecretFiles: a secret file is a regular file of bounded size; a
// device or a FIFO with no writer is refused at once, naming the file,
// line and field, instead of reading forever or blocking in open.
func TestSecretFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, MaxSecretFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "card")
	if err := os.WriteFile(good, []byte("4111111111111111\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file, want string
	}{
		{"/dev/zero", "secret file /dev/zero is not a regular file (a character device): a secret file must be a regular file of at most 65536 bytes"},
		{"/dev/urandom", "/dev/urandom is not a regular file (a character device)"},
		{fifo, "is not a regular file (a FIFO)"},
		{dir, "is not a regular file (a directory)"},
		{big, "is larger than 65536 bytes (65537 bytes)"},
		{filepath.Join(dir, "none"), "no such file or directory"},
		{good, ""},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			src := minimal + "inputs:\n  seats: '10'\n  card:\n    secret_file: " + c.file + "\n"
			tk, err := Parse("mem.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- tk.CheckSecrets() }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("checking secret_file %s did not end within 10s", c.file)
			}
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if v, _ := tk.Inputs["card"].Resolve(); v != "4111111111111111" {
					t.Fatalf("resolve = %q", v)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want a task error", err)
			}
			if loc := "mem.yaml:16: inputs.card.secret_file: "; !strings.HasPrefix(err.Error(), loc) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %q, want %q ... %q", err, loc, c.want)
			}
		})
	}
}

// TestLoadRefusesNonRegular: a task file that is a FIFO with no writer or
// a device is refused at once.
func TestLoadRefusesNonRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "task.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{fifo, "task.yaml: cannot read task file: not a regular file (a FIFO)"},
		{"/dev/zero", "/dev/zero: cannot read task file: not a regular file (a character device)"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(c.file)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("loading %s did not end within 10s", c.file)
		}
	}
}

// TestTaskWithoutCommit: a task may leave commit out when its goal is
// reached inside the page; its extract fields keep their file order, its
// failure predicates are judged with the others, and their selectors are
// checked like every other.
func TestTaskWithoutCommit(t *testing.T) {
	for _, tc := range []struct {
		file         string
		extract      []string
		failure      []string
		predicates   int
		selectorKeys []string
	}{
		{file: "../examples/lookup-team-price.yaml", extract: []string{"team_price", "team_price_cents"}, predicates: 3,
			selectorKeys: []string{"goal.success[1].visible", "extract.team_price", "extract.team_price_cents"}},
		{file: "../examples/start-trial.yaml", failure: []string{"signups_paused"}, predicates: 2,
			selectorKeys: []string{"goal.failure[0].visible"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			tk, err := Load(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if tk.HasCommit() {
				t.Fatal("HasCommit() = true for a task without commit")
			}
			var got []string
			for _, f := range tk.Extract {
				got = append(got, f.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.extract, ",") {
				t.Errorf("extract = %v, want %v", got, tc.extract)
			}
			got = nil
			for _, p := range tk.Goal.Failure {
				got = append(got, p.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.failure, ",") {
				t.Errorf("failure = %v, want %v", got, tc.failure)
			}
			if n := len(tk.Predicates()); n != tc.predicates {
				t.Errorf("%d predicates judged, want %d", n, tc.predicates)
			}
			sels := map[string]bool{}
			for _, s := range tk.Selectors() {
				sels[s.Field] = true
				if s.Line == 0 {
					t.Errorf("selector %s has no line", s.Field)
				}
			}
			for _, k := range tc.selectorKeys {
				if !sels[k] {
					t.Errorf("selector %s is not checked (have %v)", k, sels)
				}
			}
		})
	}
}

func TestParseAction(t *testing.T) {
	cases := []struct{ src, want, err string }{
		{`{click: {role: link, name: Annual}}`, `click role=link name="Annual"`, ""},
		{`{click: Annual}`, `click text="Annual"`, ""},
		{`{type: {field: seats, value: "12"}}`, `type field=seats value="12"`, ""},
		{`{navigate: "http://x.test/a"}`, `navigate http://x.test/a`, ""},
		{`{set: {role: slider, name: Volume, value: "40"}}`, `set role=slider name="Volume" value="40"`, ""},
		{`{poke: Annual}`, "", "unknown action kind"},
		{`click`, "", "exactly one action kind"},
		{`{click: {txt: A}}`, "", "unknown field"},
	}
	for _, tc := range cases {
		a, err := ParseAction("--swap-action", tc.src)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--swap-action") {
				t.Errorf("%s: err = %v, want %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		got := a.Kind
		if a.URL != "" {
			got += " " + a.URL
		}
		if tg := a.Target; tg != nil {
			if tg.Role != "" {
				got += " role=" + tg.Role
			}
			if tg.Name != "" {
				got += fmt.Sprintf(" name=%q", tg.Name)
			}
			if tg.Text != "" {
				got += fmt.Sprintf(" text=%q", tg.Text)
			}
			if tg.Field != "" {
				got += " field=" + tg.Field
			}
		}
		if a.Value != "" {
			got += fmt.Sprintf(" value=%q", a.Value)
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.src, got, tc.want)
		}
	}
}
