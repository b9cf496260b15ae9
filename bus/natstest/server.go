package natstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// ReadyTimeout bounds each wait for a server or a cluster to be ready.
	ReadyTimeout = 30 * time.Second
	// StopGrace is how long Stop and the test cleanup wait after SIGTERM
	// before they send SIGKILL.
	StopGrace = 5 * time.Second

	// startAttempts bounds the retries of a start that lost the free-port
	// race.
	startAttempts = 3
	// logTailLines is how much of a server's log a failure shows.
	logTailLines = 40
)

// errAddrInUse marks a server that could not bind one of its ports.
var errAddrInUse = errors.New("natstest: address already in use")

// Server is one nats-server process with JetStream. Its ports, name, store
// directory and configuration file stay the same across [Server.Restart].
// Kill, Stop and Running may be called from any goroutine; Restart and the
// fields belong to the test goroutine.
type Server struct {
	// URL is the client URL, nats://127.0.0.1:PORT.
	URL string
	// Name is the server_name, unique within a cluster.
	Name string
	// StoreDir is the JetStream store directory.
	StoreDir string
	// Port is the client port.
	Port int
	// MonitorURL is the HTTP monitoring endpoint, http://127.0.0.1:PORT
	// (/healthz, /varz, /jsz ...).
	MonitorURL string
	// ConfigFile is the server's configuration file.
	ConfigFile string
	// LogFile collects the server's output across restarts.
	LogFile string
	// Cmd is the current process (replaced by Restart).
	Cmd *exec.Cmd

	bin         string
	monitorPort int
	clusterPort int
	cluster     *Cluster // nil for a single server

	mu        sync.Mutex
	done      chan struct{} // closed when the current process has exited
	waitErr   error         // how it exited; valid once done is closed
	logOffset int64         // size of LogFile when the current process started
}

// Start runs one nats-server with JetStream on 127.0.0.1: a free client
// port (see [WithPort]) and a free monitoring port, the store in the test's
// temporary directory (see [WithStoreDir]), sync_interval always. It returns
// once the server accepts connections and answers a JetStream account info
// request, and registers a cleanup that stops it (SIGTERM, then SIGKILL
// after [StopGrace]) and, when the test failed, logs the tail of its log.
//
// Free ports are picked by listening on 127.0.0.1:0 and closing; another
// process may grab one before the server binds it, so Start retries up to
// three times with new ports when the server reports the address in use.
// Any other failure (a bad option, the build, the server exiting or not
// ready within [ReadyTimeout]) fails the test with the server's log tail.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var st settings
	for _, o := range opts {
		if err := o(&st); err != nil {
			t.Fatalf("natstest: Start: %v", err)
		}
	}
	if st.name == "" {
		st.name = "natstest"
	}
	bin := Binary(t)
	dir := t.TempDir()
	if st.storeDir == "" {
		st.storeDir = filepath.Join(dir, "store")
	}
	s := &Server{
		Name:       st.name,
		StoreDir:   st.storeDir,
		ConfigFile: filepath.Join(dir, "nats.conf"),
		LogFile:    filepath.Join(dir, "nats.log"),
		bin:        bin,
	}
	// Registered after t.TempDir, so it runs before the directory goes.
	t.Cleanup(func() { s.cleanup(t) })

	for attempt := 1; ; attempt++ {
		ports, err := freePorts(2)
		if err != nil {
			t.Fatal(err)
		}
		if st.port != 0 {
			ports[0] = st.port
		}
		s.setPorts(ports[0], ports[1], 0)
		err = s.writeConfig(nil)
		if err == nil {
			err = s.startAndWait()
		}
		if err == nil {
			return s
		}
		s.Kill()
		if errors.Is(err, errAddrInUse) && st.port == 0 && attempt < startAttempts {
			s.appendLog("natstest: a port was taken, retrying with new ports")
			continue
		}
		t.Fatalf("natstest: starting %s: %v\n%s", s.Name, err, s.logTail())
	}
}

// Running reports whether the server's process is alive.
func (s *Server) Running() bool {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// Kill sends SIGKILL and waits until the process has exited. Writes the
// server acknowledged are on disk (sync always); nothing else is flushed.
// Killing a server that is not running does nothing.
func (s *Server) Kill() { s.signalAndWait(syscall.SIGKILL, 0) }

// Stop sends SIGTERM, the graceful shutdown, and waits until the process
// has exited; after [StopGrace] it sends SIGKILL. Stopping a server that is
// not running does nothing.
func (s *Server) Stop() { s.signalAndWait(syscall.SIGTERM, StopGrace) }

// Restart starts the server again with the same configuration: the same
// ports, name and store directory, so streams, consumers and acknowledged
// messages are back. It waits as [Start] does; for a member of a cluster it
// also waits until the cluster's meta leader sees this server as current
// again (see [Cluster.WaitHealthy]). It fails the test when the server is
// still running, when a port is now held by another process, or when the
// server is not ready within [ReadyTimeout].
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if s.Running() {
		t.Fatalf("natstest: Restart %s: it is still running; Kill or Stop it first", s.Name)
	}
	s.appendLog("natstest: restart")
	if err := s.startAndWait(); err != nil {
		s.Kill()
		t.Fatalf("natstest: restarting %s: %v\n%s", s.Name, err, s.logTail())
	}
	if s.cluster == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), ReadyTimeout)
	defer cancel()
	if err := s.cluster.waitHealthy(ctx); err != nil {
		t.Fatalf("natstest: restarting %s: cluster: %v\n%s", s.Name, err, s.cluster.logTails())
	}
}

func (s *Server) setPorts(client, monitor, cluster int) {
	s.Port, s.monitorPort, s.clusterPort = client, monitor, cluster
	s.URL = "nats://127.0.0.1:" + strconv.Itoa(client)
	s.MonitorURL = "http://127.0.0.1:" + strconv.Itoa(monitor)
}

// configText renders the configuration file. routes are the cluster ports
// of the other members; a server with clusterPort 0 is not clustered.
func (s *Server) configText(routes []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by natstest for one test run.\n")
	fmt.Fprintf(&b, "server_name: %q\n", s.Name)
	fmt.Fprintf(&b, "listen: \"127.0.0.1:%d\"\n", s.Port)
	fmt.Fprintf(&b, "http: \"127.0.0.1:%d\"\n", s.monitorPort)
	fmt.Fprintf(&b, "jetstream {\n  store_dir: %q\n  sync_interval: always\n}\n", s.StoreDir)
	if s.clusterPort != 0 {
		fmt.Fprintf(&b, "cluster {\n  name: %q\n  listen: \"127.0.0.1:%d\"\n  routes: [\n", clusterName, s.clusterPort)
		for _, p := range routes {
			fmt.Fprintf(&b, "    \"nats-route://127.0.0.1:%d\"\n", p)
		}
		b.WriteString("  ]\n}\n")
	}
	return b.String()
}

func (s *Server) writeConfig(routes []int) error {
	if err := os.WriteFile(s.ConfigFile, []byte(s.configText(routes)), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", s.ConfigFile, err)
	}
	return nil
}

// startAndWait launches the process and waits until it is ready.
func (s *Server) startAndWait() error {
	if err := s.launch(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), ReadyTimeout)
	defer cancel()
	return s.waitReady(ctx)
}

// launch starts the process with its output appended to LogFile.
func (s *Server) launch() error {
	logf, err := os.OpenFile(s.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("opening %s: %w", s.LogFile, err)
	}
	var offset int64
	if st, err := logf.Stat(); err == nil {
		offset = st.Size()
	}
	cmd := exec.Command(s.bin, "-c", s.ConfigFile)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return fmt.Errorf("starting %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.Cmd, s.done, s.waitErr, s.logOffset = cmd, done, nil, offset
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		_ = logf.Close()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(done)
	}()
	return nil
}

// exitError returns why the process is gone, or nil while it runs. A
// process that could not bind a port yields an error wrapping errAddrInUse.
func (s *Server) exitError() error {
	s.mu.Lock()
	done, cmd := s.done, s.Cmd
	s.mu.Unlock()
	select {
	case <-done:
	default:
		return nil
	}
	s.mu.Lock()
	werr, offset := s.waitErr, s.logOffset
	s.mu.Unlock()
	state := "exited"
	if cmd != nil && cmd.ProcessState != nil {
		state = cmd.ProcessState.String()
	}
	if strings.Contains(s.logSince(offset), "address already in use") {
		return fmt.Errorf("%w: server %s %s", errAddrInUse, s.Name, state)
	}
	if werr != nil {
		return fmt.Errorf("natstest: server %s %s: %w", s.Name, state, werr)
	}
	return fmt.Errorf("natstest: server %s %s", s.Name, state)
}

// waitReady polls until the client port accepts TCP connections, then until
// a JetStream account info request through this server succeeds.
func (s *Server) waitReady(ctx context.Context) error {
	addr := "127.0.0.1:" + strconv.Itoa(s.Port)
	err := poll(ctx, 20*time.Millisecond, s.exitError, func(ctx context.Context) error {
		c, err := (&net.Dialer{Timeout: 250 * time.Millisecond}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	})
	if err != nil {
		return fmt.Errorf("client port %s: %w", addr, err)
	}
	err = poll(ctx, 50*time.Millisecond, s.exitError, func(ctx context.Context) error {
		return accountInfo(ctx, s.URL)
	})
	if err != nil {
		return fmt.Errorf("JetStream: %w", err)
	}
	return nil
}

// accountInfo connects to url without reconnecting and asks for the
// JetStream account info.
func accountInfo(ctx context.Context, url string) error {
	nc, err := nats.Connect(url, nats.Name("natstest readiness"), nats.Timeout(time.Second), nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// poll calls try every interval until it returns nil, gone reports the
// server gone, or ctx ends; the error then carries try's last error.
func poll(ctx context.Context, interval time.Duration, gone func() error, try func(context.Context) error) error {
	var last error
	for {
		if gone != nil {
			if err := gone(); err != nil {
				if last != nil {
					return fmt.Errorf("%w (last error: %v)", err, last)
				}
				return err
			}
		}
		if last = try(ctx); last == nil {
			return nil
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("not ready within %s: %w", ReadyTimeout, last)
		case <-t.C:
		}
	}
}

// signalAndWait signals the current process and waits for it to exit,
// sending SIGKILL after grace (0: wait without limit, for SIGKILL itself).
func (s *Server) signalAndWait(sig syscall.Signal, grace time.Duration) {
	s.mu.Lock()
	cmd, done := s.Cmd, s.done
	s.mu.Unlock()
	if cmd == nil || done == nil || cmd.Process == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	_ = cmd.Process.Signal(sig)
	if grace <= 0 {
		<-done
		return
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		_ = cmd.Process.Kill()
		<-done
	}
}

// cleanup stops the server at the end of the test and shows its log when
// the test failed.
func (s *Server) cleanup(t testing.TB) {
	s.Stop()
	if t.Failed() {
		t.Logf("natstest: %s (%s) log %s:\n%s", s.Name, s.URL, s.LogFile, s.logTail())
	}
}

// appendLog writes a marker line into the log file.
func (s *Server) appendLog(line string) {
	f, err := os.OpenFile(s.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "--- %s %s ---\n", time.Now().Format(time.RFC3339Nano), line)
}

// logSince returns the log written from offset on.
func (s *Server) logSince(offset int64) string {
	data, err := os.ReadFile(s.LogFile)
	if err != nil || offset < 0 || offset > int64(len(data)) {
		return ""
	}
	return string(data[offset:])
}

// logTail returns the last lines of the log file.
func (s *Server) logTail() string {
	data, err := os.ReadFile(s.LogFile)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return strings.Join(lines, "\n")
}
