package natstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// clusterName is the cluster name of every test cluster.
	clusterName = "natstest"
	// MaxClusterSize bounds StartCluster's n.
	MaxClusterSize = 9
	// probeStream is created with one replica per node and deleted again
	// before StartCluster returns.
	probeStream = "NATSTEST_READY"
)

// Cluster is a JetStream cluster of nats-server processes on loopback.
type Cluster struct {
	// Servers are the members, named natstest-0, natstest-1, ...
	Servers []*Server
}

// StartCluster runs an n-node JetStream cluster (2 <= n <= [MaxClusterSize])
// on 127.0.0.1 with free client, route and monitoring ports, each node with
// its own store in a temporary directory and sync_interval always, every
// node routing to all the others. It returns once every node answers a
// JetStream account info request, the nodes agree on a meta leader that
// sees every other node as current, and a file stream with n replicas can
// be created and deleted. Cleanups stop every node as [Start]'s do.
//
// Like Start it retries with new ports, up to three times, when a node lost
// the free-port race; any other failure fails the test with every node's
// log tail.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	if n < 2 || n > MaxClusterSize {
		t.Fatalf("natstest: StartCluster: n = %d not in 2..%d (use Start for one server)", n, MaxClusterSize)
	}
	bin := Binary(t)
	c := &Cluster{}
	for i := range n {
		dir := t.TempDir()
		s := &Server{
			Name:       fmt.Sprintf("natstest-%d", i),
			StoreDir:   filepath.Join(dir, "store"),
			ConfigFile: filepath.Join(dir, "nats.conf"),
			LogFile:    filepath.Join(dir, "nats.log"),
			bin:        bin,
			cluster:    c,
		}
		c.Servers = append(c.Servers, s)
		t.Cleanup(func() { s.cleanup(t) })
	}
	for attempt := 1; ; attempt++ {
		err := c.start()
		if err == nil {
			return c
		}
		for _, s := range c.Servers {
			s.Kill()
		}
		if errors.Is(err, errAddrInUse) && attempt < startAttempts {
			for _, s := range c.Servers {
				_ = os.RemoveAll(s.StoreDir)
				s.appendLog("natstest: a port was taken, retrying the cluster with new ports")
			}
			continue
		}
		t.Fatalf("natstest: starting a %d-node cluster: %v\n%s", n, err, c.logTails())
	}
}

// URLs returns the client URLs of all members, comma-separated, the form
// nats.Connect and the --nats flags of Multiverse take.
func (c *Cluster) URLs() string {
	urls := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		urls[i] = s.URL
	}
	return strings.Join(urls, ",")
}

// WaitHealthy waits until the running members agree on a meta leader and
// the leader sees every other running member as current; members that are
// down are ignored. It fails the test after [ReadyTimeout].
func (c *Cluster) WaitHealthy(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ReadyTimeout)
	defer cancel()
	if err := c.waitHealthy(ctx); err != nil {
		t.Fatalf("natstest: cluster not healthy: %v\n%s", err, c.logTails())
	}
}

// start picks ports, writes the configurations, launches every node and
// waits until the cluster is ready.
func (c *Cluster) start() error {
	n := len(c.Servers)
	ports, err := freePorts(3 * n)
	if err != nil {
		return err
	}
	for i, s := range c.Servers {
		s.setPorts(ports[i], ports[n+i], ports[2*n+i])
	}
	for i, s := range c.Servers {
		var routes []int
		for j, o := range c.Servers {
			if j != i {
				routes = append(routes, o.clusterPort)
			}
		}
		if err := s.writeConfig(routes); err != nil {
			return err
		}
	}
	// All nodes must run before any can elect a meta leader.
	for _, s := range c.Servers {
		if err := s.launch(); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), ReadyTimeout)
	defer cancel()
	for _, s := range c.Servers {
		if err := s.waitReady(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	if err := c.waitHealthy(ctx); err != nil {
		return err
	}
	return c.probe(ctx)
}

// waitHealthy polls the /jsz documents of the running members until
// clusterHealthy accepts them or ctx ends.
func (c *Cluster) waitHealthy(ctx context.Context) error {
	return poll(ctx, 50*time.Millisecond, c.anyExited, func(ctx context.Context) error {
		views := make(map[string]jsz)
		for _, s := range c.Servers {
			if !s.Running() {
				continue
			}
			v, err := fetchJSZ(ctx, s.MonitorURL)
			if err != nil {
				return fmt.Errorf("%s: %w", s.Name, err)
			}
			views[s.Name] = v
		}
		return clusterHealthy(views)
	})
}

// anyExited reports a member that exited on its own while the cluster is
// starting. Members a test stopped are not running and have no process
// error to report here, so it only looks at members started last.
func (c *Cluster) anyExited() error {
	for _, s := range c.Servers {
		s.mu.Lock()
		done := s.done
		s.mu.Unlock()
		if done == nil {
			continue
		}
		select {
		case <-done:
			if err := s.exitError(); err != nil && errors.Is(err, errAddrInUse) {
				return err
			}
		default:
		}
	}
	return nil
}

// probe creates and deletes a file stream with one replica per member, the
// proof that stream placement works, not only the meta group.
func (c *Cluster) probe(ctx context.Context) error {
	nc, err := nats.Connect(c.URLs(), nats.Name("natstest readiness"), nats.Timeout(time.Second))
	if err != nil {
		return fmt.Errorf("connecting to the cluster: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	cfg := jetstream.StreamConfig{
		Name:     probeStream,
		Subjects: []string{"natstest.ready"},
		Storage:  jetstream.FileStorage,
		Replicas: len(c.Servers),
	}
	err = poll(ctx, 100*time.Millisecond, nil, func(ctx context.Context) error {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err := js.CreateStream(cctx, cfg)
		return err
	})
	if err != nil {
		return fmt.Errorf("creating an R%d stream: %w", len(c.Servers), err)
	}
	err = poll(ctx, 100*time.Millisecond, nil, func(ctx context.Context) error {
		dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		err := js.DeleteStream(dctx, probeStream)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("deleting the R%d probe stream: %w", len(c.Servers), err)
	}
	return nil
}

// logTails returns the log tails of every member.
func (c *Cluster) logTails() string {
	var b strings.Builder
	for _, s := range c.Servers {
		fmt.Fprintf(&b, "--- %s (%s) %s:\n%s\n", s.Name, s.URL, s.LogFile, s.logTail())
	}
	return b.String()
}
