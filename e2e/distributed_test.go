package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/bus/natstest"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/internal/porttrap"
	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
)

var (
	workerBin string
	spans     = tracetest.NewInMemoryExporter()
)

// ackWait is short so redeliveries happen within the test's patience.
const ackWait = 4 * time.Second

func TestMain(m *testing.M) {
	flag.Parse()
	if !testing.Short() {
		dir, err := os.MkdirTemp("", "multiverse-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		workerBin = filepath.Join(dir, "worker")
		out, err := exec.Command("go", "build", "-o", workerBin, "../cmd/worker").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "building the worker: %v\n%s", err, out)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
	}
	shutdown, _ := telemetry.Setup(context.Background(), "multiverse-orchestrator", spans)
	code := porttrap.Run(m)
	shutdown(context.Background())
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type workerProc struct {
	name string
	cmd  *exec.Cmd
	log  *bytes.Buffer
}

type fleet struct {
	mu sync.Mutex
	ws map[string]*workerProc
}

// startWorkers runs n worker processes (one slot each) against url.
func startWorkers(t *testing.T, url string, n int, env ...string) *fleet {
	return startWorkersArgs(t, url, n, nil, env...)
}

func startWorkersArgs(t *testing.T, url string, n int, args []string, env ...string) *fleet {
	t.Helper()
	f := &fleet{ws: map[string]*workerProc{}}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("w%d", i)
		cmd := exec.Command(workerBin, append([]string{"--nats", url, "--slots", "1", "--name", name, "--ack-wait", ackWait.String(), "-v"}, args...)...)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		cmd.Env = append(append(os.Environ(), "PLAYWRIGHT_DRIVER_PATH="+driverDir(t)), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		f.ws[name] = &workerProc{name: name, cmd: cmd, log: &log}
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, w := range f.ws {
				t.Logf("worker %s log:\n%s", w.name, tail(w.log.String(), 400000))
			}
		}
		for _, w := range f.ws {
			w.cmd.Process.Signal(syscall.SIGCONT)
			w.cmd.Process.Signal(syscall.SIGTERM)
		}
		for _, w := range f.ws {
			done := make(chan struct{})
			go func() { w.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				w.cmd.Process.Kill()
			}
		}
	})
	return f
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (f *fleet) signal(t *testing.T, name string, sig syscall.Signal) {
	t.Helper()
	f.mu.Lock()
	w := f.ws[name]
	f.mu.Unlock()
	if w == nil {
		t.Fatalf("no worker %s", name)
	}
	if err := w.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to %s: %v", sig, name, err)
	}
}

func driverDir(t *testing.T) string {
	abs, err := filepath.Abs("../.cache/playwright-driver")
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(abs)
	for _, e := range ents {
		return filepath.Join(abs, e.Name())
	}
	return ""
}

// claims calls fn for every delivery claim of any run, in order.
func watchClaims(t *testing.T, url string, fn func(bus.Claim)) {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ch := make(chan bus.Claim, 64)
	if _, err := nc.Subscribe("mv.claims.>", func(m *nats.Msg) {
		var c bus.Claim
		if json.Unmarshal(m.Data, &c) == nil {
			ch <- c
		}
	}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for c := range ch {
			fn(c)
		}
	}()
}

func startSite(t *testing.T, latency time.Duration) *sites.Vendor {
	t.Helper()
	k := sites.DefaultKnobs()
	k.Latency = latency
	s := sitetest.Start(t, k)
	siteURLs.Store(s.Vendor, s.URL())
	return s.Vendor
}

var siteURLs sync.Map

func checkoutTask(t *testing.T, v *sites.Vendor) *task.Task {
	t.Helper()
	tk, err := task.Load("../examples/team-checkout.yaml")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := siteURLs.Load(v)
	if tk, err = tk.WithStartURL(u.(string) + "/checkout?plan=team&billing=monthly"); err != nil {
		t.Fatal(err)
	}
	return tk
}

func runRemote(t *testing.T, tk *task.Task, url string, replicas int) (*orchestrator.Summary, string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 0, NATSURL: url, Replicas: replicas, NoScreenshots: true, Logger: logger})
	if err != nil {
		mu.Lock()
		t.Logf("orchestrator log:\n%s", tail(logs.String(), 400000))
		mu.Unlock()
		if sum != nil {
			for _, e := range runEvents(t, dir, sum.RunID) {
				if e.Kind != "snapshot" {
					t.Logf("event %s %s %s %.300s", e.Time.Format("15:04:05.000"), e.Kind, e.BranchID, e.Payload)
				}
			}
		}
		t.Fatalf("run: %v", err)
	}
	return sum, dir
}

func runEvents(t *testing.T, dir, runID string) []eventlog.Event {
	t.Helper()
	l, err := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Verify(context.Background(), runID); err != nil {
		t.Fatal(err)
	}
	evs, err := l.Events(context.Background(), runID, eventlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// noBranchLost checks that every forked branch ends explored, pruned or
// failed in the event log.
func noBranchLost(t *testing.T, evs []eventlog.Event) {
	t.Helper()
	forked, ended := map[string]bool{}, map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case eventlog.KindBranchFork:
			forked[e.BranchID] = true
		case eventlog.KindMetricUpdate, eventlog.KindBranchPruned:
			ended[e.BranchID] = true
		}
	}
	for id := range forked {
		if !ended[id] {
			t.Errorf("branch %s was forked and never ended", id)
		}
	}
}

func oneOrder(t *testing.T, v *sites.Vendor, sum *orchestrator.Summary) {
	t.Helper()
	orders := v.Orders()
	if len(orders) != 1 || sum.Commit == nil || orders[0].ID != sum.Commit.OrderID {
		t.Fatalf("site holds %d orders (%+v), summary commit %+v", len(orders), orders, sum.Commit)
	}
}

// TestWorkerKilledMidBranch: three worker processes and an external
// nats-server; one worker is killed with SIGKILL while it runs a branch.
// The branch is redelivered and completes, the run commits once, and no
// branch is lost.
func TestWorkerKilledMidBranch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker and nats-server processes")
	}
	srv := natstest.Start(t)
	v := startSite(t, 150*time.Millisecond)
	f := startWorkers(t, srv.URL, 3)
	var once sync.Once
	var killed bus.Claim
	n := 0
	watchClaims(t, srv.URL, func(c bus.Claim) {
		n++
		if n == 3 {
			once.Do(func() { killed = c; f.signal(t, c.Worker, syscall.SIGKILL) })
		}
	})
	sum, dir := runRemote(t, checkoutTask(t, v), srv.URL, 0)
	oneOrder(t, v, sum)
	evs := runEvents(t, dir, sum.RunID)
	noBranchLost(t, evs)
	if killed.BranchID == "" {
		t.Fatal("no worker was killed")
	}
	redelivered := false
	for _, e := range evs {
		if e.BranchID == killed.BranchID && e.Kind == eventlog.KindActionStart && strings.Contains(string(e.Payload), `"attempt":2`) {
			redelivered = true
		}
	}
	if !redelivered {
		t.Errorf("the killed worker's branch %s shows no second attempt", killed.BranchID)
	}
}

// TestStalledWorkerResultIsStale: a worker paused with SIGSTOP past the
// ack deadline loses its job to another worker; when it resumes, its late
// result is rejected as stale, and there is still exactly one order.
func TestStalledWorkerResultIsStale(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker and nats-server processes")
	}
	srv := natstest.Start(t)
	v := startSite(t, 150*time.Millisecond)
	f := startWorkers(t, srv.URL, 3)
	var stopped bus.Claim
	n := 0
	watchClaims(t, srv.URL, func(c bus.Claim) {
		n++
		switch {
		case n == 2:
			stopped = c
			f.signal(t, c.Worker, syscall.SIGSTOP)
		case stopped.BranchID != "" && c.BranchID == stopped.BranchID && c.Attempt > stopped.Attempt:
			// Another worker owns the job now: wake the stalled one, whose
			// result is stale from here on.
			f.signal(t, stopped.Worker, syscall.SIGCONT)
		}
	})
	sum, dir := runRemote(t, checkoutTask(t, v), srv.URL, 0)
	oneOrder(t, v, sum)
	// The resumed worker answers after its job moved on; give it time.
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs := runEvents(t, dir, sum.RunID)
		stale := false
		for _, e := range evs {
			if e.Kind == "stale_result" && e.BranchID == stopped.BranchID {
				stale = true
			}
		}
		if stale {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stalled worker's late result for branch %s was not rejected as stale", stopped.BranchID)
		}
		time.Sleep(500 * time.Millisecond)
	}
	noBranchLost(t, runEvents(t, dir, sum.RunID))
}

// TestServerRestartMidRun: the nats-server is killed and restarted on the
// same store in the middle of the run; the run completes and commits once.
func TestServerRestartMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker and nats-server processes")
	}
	srv := natstest.Start(t)
	v := startSite(t, 100*time.Millisecond)
	startWorkers(t, srv.URL, 2)
	var once sync.Once
	n := 0
	watchClaims(t, srv.URL, func(c bus.Claim) {
		n++
		if n == 3 {
			once.Do(func() {
				go func() {
					srv.Kill()
					srv.Restart(t)
				}()
			})
		}
	})
	sum, dir := runRemote(t, checkoutTask(t, v), srv.URL, 0)
	oneOrder(t, v, sum)
	noBranchLost(t, runEvents(t, dir, sum.RunID))
}

// TestClusterNodeKilled: a three-node JetStream cluster with R3 streams;
// one node is killed mid-run; the run completes and commits once.
func TestClusterNodeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker and nats-server processes")
	}
	c := natstest.StartCluster(t, 3)
	v := startSite(t, 100*time.Millisecond)
	startWorkersArgs(t, c.URLs(), 2, []string{"--replicas", "3"})
	var once sync.Once
	n := 0
	watchClaims(t, c.Servers[1].URL, func(cl bus.Claim) {
		n++
		if n == 3 {
			once.Do(func() { go c.Servers[2].Kill() })
		}
	})
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		cl, err := bus.Connect(context.Background(), c.URLs())
		if err != nil {
			t.Logf("diagnose: %v", err)
			return
		}
		defer cl.Close()
		for _, name := range []string{bus.JobsStream, bus.ResultsStream} {
			st, err := cl.JetStream().Stream(context.Background(), name)
			if err != nil {
				t.Logf("stream %s: %v", name, err)
				continue
			}
			info, _ := st.Info(context.Background())
			t.Logf("stream %s: msgs %d replicas %d leader %s", name, info.State.Msgs, info.Config.Replicas, info.Cluster.Leader)
			if name == bus.JobsStream {
				if cons, err := st.Consumer(context.Background(), bus.DefaultConsumer); err == nil {
					ci, _ := cons.Info(context.Background())
					t.Logf("consumer: pending %d ack pending %d redelivered %d waiting %d replicas %d leader %s", ci.NumPending, ci.NumAckPending, ci.NumRedelivered, ci.NumWaiting, ci.Config.Replicas, ci.Cluster.Leader)
				} else {
					t.Logf("consumer: %v", err)
				}
			}
		}
	})
	sum, dir := runRemote(t, checkoutTask(t, v), c.URLs(), 3)
	oneOrder(t, v, sum)
	noBranchLost(t, runEvents(t, dir, sum.RunID))
}

// otlpReceiver collects the spans worker processes export over OTLP/HTTP.
type otlpReceiver struct {
	mu    sync.Mutex
	spans map[string][]string // trace id -> service names
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				id := fmt.Sprintf("%x", s.TraceId)
				o.spans[id] = append(o.spans[id], service)
			}
		}
	}
	o.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Write(out)
}

// TestOneTraceAcrossProcesses: the orchestrator's spans (collected in
// memory) and the worker processes' spans (collected by an OTLP receiver)
// share the run's trace id, and the event log records it.
func TestOneTraceAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker and nats-server processes")
	}
	recv := &otlpReceiver{spans: map[string][]string{}}
	hs := httptest.NewServer(recv)
	defer hs.Close()
	srv := natstest.Start(t)
	v := startSite(t, 20*time.Millisecond)
	f := startWorkers(t, srv.URL, 2, "OTEL_EXPORTER_OTLP_ENDPOINT="+hs.URL, "OTEL_BSP_SCHEDULE_DELAY=100",
		"OTEL_SERVICE_NAME=checkout-workers", "OTEL_RESOURCE_ATTRIBUTES=deployment.environment=ci")
	spans.Reset()
	sum, dir := runRemote(t, checkoutTask(t, v), srv.URL, 0)
	evs := runEvents(t, dir, sum.RunID)
	traceID := evs[0].TraceID
	// Stop the workers so they flush their spans.
	for name := range f.ws {
		f.signal(t, name, syscall.SIGTERM)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		recv.mu.Lock()
		services := recv.spans[traceID]
		recv.mu.Unlock()
		if len(services) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no worker span carries the run's trace id %s (received traces: %d)", traceID, len(recv.spans))
		}
		time.Sleep(200 * time.Millisecond)
	}
	recv.mu.Lock()
	services := recv.spans[traceID]
	recv.mu.Unlock()
	if services[0] != "checkout-workers" {
		t.Errorf("worker spans from service %q, want OTEL_SERVICE_NAME's checkout-workers", services[0])
	}
	orch := 0
	names := map[string]codes.Code{}
	for _, s := range spans.GetSpans() {
		if s.SpanContext.TraceID().String() == traceID {
			orch++
			names[s.Name] = s.Status.Code
		}
	}
	if orch == 0 {
		t.Fatalf("no orchestrator span carries the run's trace id %s", traceID)
	}
	// Spans say what ran, and how it ended.
	if c, ok := names["run "+sum.Task]; !ok || c != codes.Ok {
		t.Errorf("run span: %v (present %v); spans %v", c, ok, names)
	}
	if c, ok := names["branch open the start page"]; !ok || c != codes.Ok {
		t.Errorf("the root's branch span: %v (present %v); spans %v", c, ok, names)
	}
	pruned := false
	for _, s := range spans.GetSpans() {
		if s.SpanContext.TraceID().String() == traceID && strings.HasPrefix(s.Name, "branch ") && s.Status.Code == codes.Error &&
			strings.HasPrefix(s.Status.Description, "pruned: ") {
			pruned = true
		}
	}
	if !pruned {
		t.Errorf("no pruned branch span has status Error with its rule; spans %v", names)
	}
	for _, e := range evs {
		if e.TraceID != traceID {
			t.Fatalf("event %d (%s) has trace id %s, want %s", e.Seq, e.Kind, e.TraceID, traceID)
		}
	}
}

// TestWarmRoutingAcrossProcesses: with two worker processes, a child goes
// to the process that kept its parent's live context and continues it
// there instead of replaying the prefix.
func TestWarmRoutingAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker and nats-server processes")
	}
	srv := natstest.Start(t)
	v := startSite(t, 50*time.Millisecond)
	startWorkers(t, srv.URL, 2)
	sum, dir := runRemote(t, checkoutTask(t, v), srv.URL, 0)
	oneOrder(t, v, sum)
	evs := runEvents(t, dir, sum.RunID)
	noBranchLost(t, evs)
	parent := map[string]string{}
	workerOf := map[string]string{}
	type start struct {
		branch, worker, routedTo string
		warm                     bool
	}
	var starts []start
	for _, e := range evs {
		var p map[string]any
		json.Unmarshal(e.Payload, &p)
		switch e.Kind {
		case eventlog.KindBranchFork:
			parent[e.BranchID], _ = p["parent"].(string)
		case eventlog.KindActionStart:
			w, _ := p["worker"].(string)
			workerOf[e.BranchID] = w
			if replayed, _ := p["replayed"].(bool); !replayed {
				s := start{branch: e.BranchID, worker: w}
				s.routedTo, _ = p["routed_to"].(string)
				s.warm, _ = p["warm"].(bool)
				starts = append(starts, s)
			}
		}
	}
	routed, warmRouted := 0, 0
	for _, s := range starts {
		if s.warm && workerOf[parent[s.branch]] != s.worker {
			t.Errorf("branch %s continued a live context on %s, but its parent ran on %s", s.branch, s.worker, workerOf[parent[s.branch]])
		}
		if s.routedTo != "" {
			routed++
			if s.warm {
				warmRouted++
			}
			if s.worker != workerOf[parent[s.branch]] {
				t.Errorf("branch %s was routed to its parent's worker %s but ran on %s", s.branch, workerOf[parent[s.branch]], s.worker)
			}
		}
	}
	t.Logf("summary: routed %d, rerouted %d, warm %d of %d branches; routed and run where sent: %d, of them warm: %d",
		sum.Routed, sum.Rerouted, sum.Warm, sum.Branches.Executed, routed, warmRouted)
	if routed == 0 || warmRouted < routed*3/4 {
		t.Fatalf("%d branches ran where they were routed and %d of them continued the live context; want most", routed, warmRouted)
	}
}
