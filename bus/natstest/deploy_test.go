package natstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"gopkg.in/yaml.v3"
)

// The tests in this file check deploy/ at the repository root: the NATS
// configurations with the real server (`nats-server -t` and its own
// parser), and the compose file, the Kubernetes manifests, the Dockerfile
// and the systemd unit for the settings OPERATIONS.md relies on, since
// neither Docker nor Kubernetes runs where the tests do.

var deployDir = filepath.Join("..", "..", "deploy")

// storeDirLine matches the store_dir setting of a configuration file.
var storeDirLine = regexp.MustCompile(`(?m)^(\s*store_dir:\s*).*$`)

// withTempStoreDir copies a configuration with its store_dir pointed at a
// temporary directory and returns the copy's path. It fails the test unless
// the file sets store_dir exactly once.
func withTempStoreDir(t *testing.T, conf []byte) string {
	t.Helper()
	if n := len(storeDirLine.FindAll(conf, -1)); n != 1 {
		t.Fatalf("store_dir is set %d times, want once", n)
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	out := storeDirLine.ReplaceAll(conf, []byte(`${1}"`+store+`"`))
	path := filepath.Join(dir, "nats.conf")
	requireNoErr(t, os.WriteFile(path, out, 0o644), "write config copy")
	return path
}

// configTest runs `nats-server -t -c path` and returns its error and
// output.
func configTest(t *testing.T, path string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, Binary(t), "-t", "-c", path).CombinedOutput()
	return string(out), err
}

// nodeWant is what one node's configuration must say.
type nodeWant struct {
	name                     string
	client, cluster, http    int
	routes                   []int // cluster ports of the other nodes
	host                     string
	storeDir, clusterName    string
	minMaxStore, maxMaxStore int64
	routeHostsMustBeLoopback bool
}

// checkNode returns every way opts misses want, or nil.
func checkNode(opts *server.Options, want nodeWant) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !opts.JetStream {
		bad("JetStream is not enabled")
	}
	if !opts.SyncAlways {
		bad("jetstream.sync_interval is not \"always\" (sync interval %s)", opts.SyncInterval)
	}
	if opts.ServerName != want.name {
		bad("server_name = %q, want %q", opts.ServerName, want.name)
	}
	if opts.Port != want.client {
		bad("client port = %d, want %d", opts.Port, want.client)
	}
	if opts.HTTPPort != want.http {
		bad("monitoring port = %d, want %d", opts.HTTPPort, want.http)
	}
	if opts.Cluster.Port != want.cluster {
		bad("cluster port = %d, want %d", opts.Cluster.Port, want.cluster)
	}
	if opts.Cluster.Name != want.clusterName {
		bad("cluster name = %q, want %q", opts.Cluster.Name, want.clusterName)
	}
	if want.host != "" && opts.Host != want.host {
		bad("listen host = %q, want %q", opts.Host, want.host)
	}
	if opts.JetStreamMaxStore < want.minMaxStore || opts.JetStreamMaxStore > want.maxMaxStore {
		bad("max_file_store = %d, want %d..%d", opts.JetStreamMaxStore, want.minMaxStore, want.maxMaxStore)
	}
	var ports []int
	for _, r := range opts.Routes {
		var p int
		if _, err := fmt.Sscan(r.Port(), &p); err != nil {
			bad("route %s: port %q", r, r.Port())
			continue
		}
		if want.routeHostsMustBeLoopback && r.Hostname() != "127.0.0.1" {
			bad("route %s does not point at 127.0.0.1", r)
		}
		ports = append(ports, p)
	}
	slices.Sort(ports)
	if !slices.Equal(ports, want.routes) {
		bad("route ports = %v, want %v", ports, want.routes)
	}
	return errors.Join(errs...)
}

func TestDeployNATSConfigs(t *testing.T) {
	base := nodeWant{clusterName: "multiverse", host: "127.0.0.1", minMaxStore: 1 << 30, maxMaxStore: 1 << 40, routeHostsMustBeLoopback: true}
	node := func(name string, client, cluster, http int, routes ...int) nodeWant {
		w := base
		w.name, w.client, w.cluster, w.http, w.routes = name, client, cluster, http, routes
		return w
	}
	tests := []struct {
		file       string
		dir        string
		want       nodeWant
		wantT      bool   // nats-server -t accepts it
		wantBadMsg string // checkNode's error, "" for none
	}{
		{"cluster-a.conf", filepath.Join(deployDir, "nats"), node("mv-nats-a", 4222, 6222, 8222, 6223, 6224), true, ""},
		{"cluster-b.conf", filepath.Join(deployDir, "nats"), node("mv-nats-b", 4223, 6223, 8223, 6222, 6224), true, ""},
		{"cluster-c.conf", filepath.Join(deployDir, "nats"), node("mv-nats-c", 4224, 6224, 8224, 6222, 6223), true, ""},
		{"bad-conf-no-sync.conf", "testdata", node("mv-nats-a", 4222, 6222, 8222, 6223, 6224), true, `sync_interval is not "always"`},
		{"bad-conf-sync-interval.conf", "testdata", node("mv-nats-a", 4222, 6222, 8222, 6223, 6224), true, `sync_interval is not "always" (sync interval 10s)`},
		{"bad-conf-syntax.conf", "testdata", nodeWant{}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			conf, err := os.ReadFile(filepath.Join(tc.dir, tc.file))
			requireNoErr(t, err, "read")
			path := withTempStoreDir(t, conf)
			out, err := configTest(t, path)
			if !tc.wantT {
				if err == nil {
					t.Fatalf("nats-server -t accepted %s:\n%s", tc.file, out)
				}
				return
			}
			if err != nil || !strings.Contains(out, "is valid") {
				t.Fatalf("nats-server -t rejected %s: %v\n%s", tc.file, err, out)
			}
			opts, err := server.ProcessConfigFile(path)
			requireNoErr(t, err, "ProcessConfigFile")
			err = checkNode(opts, tc.want)
			switch {
			case tc.wantBadMsg == "" && err != nil:
				t.Fatalf("%s: %v", tc.file, err)
			case tc.wantBadMsg != "" && (err == nil || !strings.Contains(err.Error(), tc.wantBadMsg)):
				t.Fatalf("%s: check error = %v, want %q", tc.file, err, tc.wantBadMsg)
			}
		})
	}
}

// k8sDocs reads every document of the manifests kustomization.yaml lists.
func k8sDocs(t *testing.T) []map[string]any {
	t.Helper()
	var kust struct {
		Resources []string `yaml:"resources"`
	}
	data, err := os.ReadFile(filepath.Join(deployDir, "k8s", "kustomization.yaml"))
	requireNoErr(t, err, "read kustomization")
	requireNoErr(t, yaml.Unmarshal(data, &kust), "parse kustomization")
	files, err := filepath.Glob(filepath.Join(deployDir, "k8s", "*.yaml"))
	requireNoErr(t, err, "glob")
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" && !slices.Contains(kust.Resources, b) {
			t.Errorf("%s is not listed in kustomization.yaml", b)
		}
	}
	var docs []map[string]any
	for _, r := range kust.Resources {
		data, err := os.ReadFile(filepath.Join(deployDir, "k8s", r))
		requireNoErr(t, err, "read "+r)
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc map[string]any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			requireNoErr(t, err, "parse "+r)
			if doc != nil {
				docs = append(docs, doc)
			}
		}
	}
	return docs
}

// find returns the document of the kind and name.
func find(t *testing.T, docs []map[string]any, kind, name string) map[string]any {
	t.Helper()
	for _, d := range docs {
		if d["kind"] == kind && dig(d, "metadata", "name") == name {
			return d
		}
	}
	t.Fatalf("no %s %s in deploy/k8s", kind, name)
	return nil
}

// dig follows map keys and list indexes; it returns nil where the path
// does not exist.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// byName returns the element of a list of maps whose "name" is name.
func byName(list any, name string) map[string]any {
	l, _ := list.([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}

func TestDeployK8sManifests(t *testing.T) {
	docs := k8sDocs(t)
	for _, d := range docs {
		if d["kind"] != "Namespace" && dig(d, "metadata", "namespace") != "multiverse" {
			t.Errorf("%s %v is not in namespace multiverse", d["kind"], dig(d, "metadata", "name"))
		}
	}
	find(t, docs, "Namespace", "multiverse")

	t.Run("task", func(t *testing.T) {
		cm := find(t, docs, "ConfigMap", "multiverse-task")
		want, err := os.ReadFile(filepath.Join("..", "..", "examples", "procure-team-plan.yaml"))
		requireNoErr(t, err, "read the example task")
		if got, _ := dig(cm, "data", "procure-team-plan.yaml").(string); got != string(want) {
			t.Fatal("the task ConfigMap differs from examples/procure-team-plan.yaml; copy it again")
		}
	})

	t.Run("nats", func(t *testing.T) {
		sts := find(t, docs, "StatefulSet", "nats")
		requireEqual(t, dig(sts, "spec", "replicas"), any(3), "NATS replicas")
		requireEqual(t, dig(sts, "spec", "serviceName"), any("nats-headless"), "serviceName")
		requireEqual(t, dig(sts, "spec", "volumeClaimTemplates", 0, "metadata", "name"), any("data"), "volume claim")
		mounts := dig(sts, "spec", "template", "spec", "containers", 0, "volumeMounts")
		requireEqual(t, dig(byName(mounts, "data"), "mountPath"), any("/data"), "data mount")
		svc := find(t, docs, "Service", "nats-headless")
		requireEqual(t, dig(svc, "spec", "clusterIP"), any("None"), "headless")
		find(t, docs, "PodDisruptionBudget", "nats")

		conf, _ := dig(find(t, docs, "ConfigMap", "nats-config"), "data", "nats.conf").(string)
		t.Setenv("POD_NAME", "nats-1")
		path := withTempStoreDir(t, []byte(conf))
		out, err := configTest(t, path)
		if err != nil {
			t.Fatalf("nats-server -t rejected the ConfigMap's nats.conf: %v\n%s", err, out)
		}
		opts, err := server.ProcessConfigFile(path)
		requireNoErr(t, err, "ProcessConfigFile")
		// A route to itself is dropped by the server: all three are listed.
		want := nodeWant{name: "nats-1", client: 4222, cluster: 6222, http: 8222, routes: []int{6222, 6222, 6222},
			host: "0.0.0.0", clusterName: "multiverse", minMaxStore: 1 << 30, maxMaxStore: 25 << 30}
		requireNoErr(t, checkNode(opts, want), "the ConfigMap's nats.conf")
		for i, r := range opts.Routes {
			if want := fmt.Sprintf("nats-%d.nats-headless.multiverse.svc.cluster.local", i); r.Hostname() != want {
				t.Errorf("route %d = %s, want host %s", i, r, want)
			}
		}
	})

	t.Run("workers", func(t *testing.T) {
		dep := find(t, docs, "Deployment", "multiverse-worker")
		requireEqual(t, dig(dep, "spec", "replicas"), any(3), "worker replicas")
		pod := dig(dep, "spec", "template", "spec")
		requireEqual(t, dig(pod, "securityContext", "runAsNonRoot"), any(true), "runAsNonRoot")
		if uid, _ := dig(pod, "securityContext", "runAsUser").(int); uid == 0 {
			t.Fatal("workers run as root: Chromium would lose its sandbox")
		}
		c := dig(pod, "containers", 0)
		args := fmt.Sprint(dig(c, "args"))
		for _, want := range []string{"worker", "--slots=2", "--nats=nats://nats.multiverse.svc.cluster.local:4222"} {
			if !strings.Contains(args, want) {
				t.Errorf("worker args %s lack %s", args, want)
			}
		}
		requireEqual(t, dig(c, "resources", "requests", "cpu"), any("1"), "cpu request")
		requireEqual(t, dig(c, "resources", "requests", "memory"), any("1536Mi"), "memory request")
		shm := byName(dig(pod, "volumes"), "dshm")
		requireEqual(t, dig(shm, "emptyDir", "medium"), any("Memory"), "/dev/shm medium")
		requireEqual(t, dig(byName(dig(c, "volumeMounts"), "dshm"), "mountPath"), any("/dev/shm"), "/dev/shm mount")
		env := dig(c, "env")
		for _, name := range []string{"MULTIVERSE_CHROMIUM", "PLAYWRIGHT_DRIVER_PATH"} {
			if byName(env, name) == nil {
				t.Errorf("worker env lacks %s", name)
			}
		}
		pdb := find(t, docs, "PodDisruptionBudget", "multiverse-worker")
		sel := dig(pdb, "spec", "selector", "matchLabels", "app.kubernetes.io/name")
		requireEqual(t, sel, dig(dep, "spec", "template", "metadata", "labels", "app.kubernetes.io/name"), "PDB selector")
	})

	t.Run("orchestrator", func(t *testing.T) {
		job := find(t, docs, "Job", "multiverse-run")
		pod := dig(job, "spec", "template", "spec")
		requireEqual(t, dig(pod, "restartPolicy"), any("Never"), "restartPolicy")
		requireEqual(t, dig(pod, "securityContext", "runAsNonRoot"), any(true), "runAsNonRoot")
		args := fmt.Sprint(dig(pod, "containers", 0, "args"))
		for _, want := range []string{"orchestrator run /tasks/procure-team-plan.yaml", "--workers=0", "--nats=nats://"} {
			if !strings.Contains(args, want) {
				t.Errorf("orchestrator args %s lack %s", args, want)
			}
		}
		requireEqual(t, dig(byName(dig(pod, "volumes"), "task"), "configMap", "name"), any("multiverse-task"), "task volume")
		requireEqual(t, dig(find(t, docs, "PersistentVolumeClaim", "multiverse-artifacts"), "spec", "accessModes", 0), any("ReadWriteMany"), "artifact store access")
		requireEqual(t, dig(find(t, docs, "PersistentVolumeClaim", "multiverse-orchestrator-data"), "spec", "accessModes", 0), any("ReadWriteOnce"), "data dir access")
	})
}

func TestDeployCompose(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(deployDir, "compose.yaml"))
	requireNoErr(t, err, "read")
	var doc map[string]any
	requireNoErr(t, yaml.Unmarshal(data, &doc), "parse")
	svc := func(name string) map[string]any {
		s, _ := dig(doc, "services", name).(map[string]any)
		if s == nil {
			t.Fatalf("compose.yaml has no service %s", name)
		}
		return s
	}
	command := func(s map[string]any) string { return fmt.Sprint(s["command"]) }
	urls := "nats://nats-a:4222,nats://nats-b:4223,nats://nats-c:4224"

	for _, n := range []string{"a", "b", "c"} {
		s := svc("nats-" + n)
		if !strings.Contains(command(s), "/etc/nats/cluster-"+n+".conf") {
			t.Errorf("nats-%s does not run cluster-%s.conf: %s", n, n, command(s))
		}
		requireEqual(t, dig(s, "build", "target"), any("nats"), "nats-"+n+" build target")
	}
	orch := svc("orchestrator")
	for _, want := range []string{"orchestrator run /tasks/procure-team-plan.yaml", "--nats " + urls, "--workers 0"} {
		if !strings.Contains(command(orch), want) {
			t.Errorf("orchestrator command %s lacks %q", command(orch), want)
		}
	}
	if !strings.Contains(command(svc("site")), "orchestrator site --addr 0.0.0.0:8555") {
		t.Errorf("site command = %s", command(svc("site")))
	}
	w := svc("worker")
	for _, want := range []string{"worker --nats " + urls, "--slots 2"} {
		if !strings.Contains(command(w), want) {
			t.Errorf("worker command %s lacks %q", command(w), want)
		}
	}
	requireEqual(t, dig(w, "deploy", "replicas"), any(3), "worker replicas")
	// The merge keys must have carried the image and the browser settings.
	requireEqual(t, dig(w, "build", "dockerfile"), any("deploy/Dockerfile"), "worker dockerfile")
	if fmt.Sprint(w["security_opt"]) != "[seccomp=unconfined]" {
		t.Errorf("worker security_opt = %v", w["security_opt"])
	}
}

func TestDeployDockerfile(t *testing.T) {
	df, err := os.ReadFile(filepath.Join(deployDir, "Dockerfile"))
	requireNoErr(t, err, "read Dockerfile")
	text := string(df)
	for _, want := range []string{
		"CGO_ENABLED=1 go build -trimpath -o /out/orchestrator ./cmd/orchestrator",
		"CGO_ENABLED=1 go build -trimpath -o /out/worker ./cmd/worker",
		"go build -trimpath -o /out/nats-server github.com/nats-io/nats-server/v2",
		"FROM debian:${DEBIAN_RELEASE}-slim AS runtime",
		"chromium nodejs npm",
		`npm pack --silent "playwright-core@${v}"`,
		"USER 10001:10001",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	// The driver version comes from browser.DriverVersion with the same
	// expression scripts/deps.sh uses; it must find exactly one line.
	const sedExpr = `s/^const DriverVersion = "\(.*\)"$/\1/p`
	if !strings.Contains(text, sedExpr) {
		t.Errorf("Dockerfile does not read DriverVersion with %s", sedExpr)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "browser", "discover.go"))
	requireNoErr(t, err, "read browser/discover.go")
	m := regexp.MustCompile(`(?m)^const DriverVersion = "(.*)"$`).FindAllSubmatch(src, -1)
	if len(m) != 1 || len(m[0][1]) == 0 {
		t.Fatalf("browser/discover.go: %d DriverVersion lines, want 1", len(m))
	}
	env, err := os.ReadFile(filepath.Join(deployDir, "systemd", "worker.env.example"))
	requireNoErr(t, err, "read worker.env.example")
	if !strings.Contains(string(env), "PLAYWRIGHT_DRIVER_PATH=/opt/multiverse/playwright-driver/"+string(m[0][1])+"\n") {
		t.Errorf("worker.env.example's PLAYWRIGHT_DRIVER_PATH does not name driver %s", m[0][1])
	}
}

func TestDeploySystemdUnit(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(deployDir, "systemd", "multiverse-worker.service"))
	requireNoErr(t, err, "read")
	settings := map[string][]string{}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("not a setting: %q", line)
		}
		settings[k] = append(settings[k], v)
	}
	for k, want := range map[string]string{
		"Restart":         "always",
		"User":            "multiverse",
		"EnvironmentFile": "/etc/multiverse/worker.env",
	} {
		if !slices.Contains(settings[k], want) {
			t.Errorf("%s = %v, want %s", k, settings[k], want)
		}
	}
	if exec := strings.Join(settings["ExecStart"], ""); !strings.Contains(exec, "--nats ${MULTIVERSE_NATS}") {
		t.Errorf("ExecStart = %s", exec)
	}
	env, err := os.ReadFile(filepath.Join(deployDir, "systemd", "worker.env.example"))
	requireNoErr(t, err, "read worker.env.example")
	for _, k := range []string{"MULTIVERSE_NATS=", "MULTIVERSE_SLOTS=", "MULTIVERSE_CHROMIUM=", "PLAYWRIGHT_DRIVER_PATH="} {
		if !strings.Contains(string(env), "\n"+k) {
			t.Errorf("worker.env.example does not set %s", strings.TrimSuffix(k, "="))
		}
	}
}
