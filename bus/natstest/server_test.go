package natstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestBinaryIsTheModuleVersion(t *testing.T) {
	bin := Binary(t)
	requireEqual(t, Binary(t), bin, "second Binary call")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	version, local, err := moduleVersion(ctx, "go")
	requireNoErr(t, err, "module version")
	if local {
		t.Skipf("%s is replaced by a local directory", ServerModule)
	}
	want := filepath.Join(os.TempDir(), "multiverse-nats-server-"+version, "nats-server")
	requireEqual(t, bin, want, "binary path")
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	requireNoErr(t, err, "nats-server --version")
	requireEqual(t, strings.TrimSpace(string(out)), "nats-server: "+version, "--version output")
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name  string
		opt   Option
		valid bool
		check func(settings) bool
	}{
		{"name", WithName("alpha-1"), true, func(s settings) bool { return s.name == "alpha-1" }},
		{"empty name", WithName(""), false, nil},
		{"name with space", WithName("a b"), false, nil},
		{"name with quote", WithName(`a"b`), false, nil},
		{"port", WithPort(4222), true, func(s settings) bool { return s.port == 4222 }},
		{"port zero", WithPort(0), false, nil},
		{"port too big", WithPort(65536), false, nil},
		{"store dir", WithStoreDir("/tmp/x y"), true, func(s settings) bool { return s.storeDir == "/tmp/x y" }},
		{"relative store dir", WithStoreDir("store"), false, nil},
		{"store dir with backslash", WithStoreDir(`/tmp/a\b`), false, nil},
		{"store dir with newline", WithStoreDir("/tmp/a\nb"), false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s settings
			err := tc.opt(&s)
			if !tc.valid {
				requireErrIs(t, err, ErrInvalidOption)
				requireEqual(t, s, settings{}, "settings after a rejected option")
				return
			}
			requireNoErr(t, err, "option")
			if !tc.check(s) {
				t.Fatalf("settings = %+v", s)
			}
		})
	}
}

// TestRestartKeepsAckedMessages publishes with a store acknowledgement,
// takes the server down, restarts it and expects every acknowledged
// message back, for both ways down.
func TestRestartKeepsAckedMessages(t *testing.T) {
	tests := []struct {
		name string
		down func(*Server)
	}{
		{"kill -9", (*Server).Kill},
		{"sigterm", (*Server).Stop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Start(t, WithName("single"))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			v, err := fetchJSZ(ctx, s.MonitorURL)
			requireNoErr(t, err, "jsz")
			requireEqual(t, v.Config.SyncAlways, true, "sync_always")
			if !strings.HasPrefix(v.Config.StoreDir, s.StoreDir) {
				t.Fatalf("store dir = %s, want one under %s", v.Config.StoreDir, s.StoreDir)
			}

			js := connect(t, s.URL)
			st, err := js.CreateStream(ctx, jetstream.StreamConfig{
				Name: "ORDERS", Subjects: []string{"orders.>"}, Storage: jetstream.FileStorage,
			})
			requireNoErr(t, err, "create stream")
			const n = 3
			for i := 1; i <= n; i++ {
				ack := publishUntil(ctx, t, js, "orders.placed", fmt.Appendf(nil, "order-%d", i))
				requireEqual(t, ack.Sequence, uint64(i), "ack sequence")
			}
			oldPID, url := s.Cmd.Process.Pid, s.URL

			tc.down(s)
			requireEqual(t, s.Running(), false, "running after going down")
			if c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL, "nats://"), time.Second); err == nil {
				c.Close()
				t.Fatal("the client port still accepts connections")
			}

			s.Restart(t)
			requireEqual(t, s.Running(), true, "running after restart")
			requireEqual(t, s.URL, url, "URL after restart")
			if s.Cmd.Process.Pid == oldPID {
				t.Fatal("Restart kept the old process")
			}
			// The client reconnects to the same address by itself.
			eventually(t, 10*time.Second, "stream back", func(ctx context.Context) error {
				info, err := st.Info(ctx)
				if err != nil {
					return err
				}
				if info.State.Msgs != n {
					return fmt.Errorf("%d messages, want %d", info.State.Msgs, n)
				}
				return nil
			})
			for i := 1; i <= n; i++ {
				m, err := st.GetMsg(ctx, uint64(i))
				requireNoErr(t, err, "get message")
				requireEqual(t, string(m.Data), fmt.Sprintf("order-%d", i), "message data")
			}
		})
	}
}

// TestWithStoreDirSurvivesANewServer starts a second server on the store
// directory the first one left behind.
func TestWithStoreDirSurvivesANewServer(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	first := Start(t, WithStoreDir(dir))
	js := connect(t, first.URL)
	_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "KEEP", Subjects: []string{"keep"}})
	requireNoErr(t, err, "create stream")
	publishUntil(ctx, t, js, "keep", []byte("x"))
	first.Kill()

	second := Start(t, WithStoreDir(dir), WithName("second"))
	st, err := connect(t, second.URL).Stream(ctx, "KEEP")
	requireNoErr(t, err, "stream on the second server")
	requireEqual(t, st.CachedInfo().State.Msgs, uint64(1), "messages")
}

// TestPortTakenIsReported holds a port and expects the server that tries
// it to be classified as having lost the free-port race, which Start
// retries.
func TestPortTakenIsReported(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	requireNoErr(t, err, "listen")
	defer l.Close()
	dir := t.TempDir()
	s := &Server{
		Name:       "taken",
		StoreDir:   filepath.Join(dir, "store"),
		ConfigFile: filepath.Join(dir, "nats.conf"),
		LogFile:    filepath.Join(dir, "nats.log"),
		bin:        Binary(t),
	}
	t.Cleanup(func() { s.cleanup(t) })
	ports, err := freePorts(1)
	requireNoErr(t, err, "free ports")
	s.setPorts(l.Addr().(*net.TCPAddr).Port, ports[0], 0)
	requireNoErr(t, s.writeConfig(nil), "write config")
	err = s.startAndWait()
	requireErrIs(t, err, errAddrInUse)
	requireEqual(t, s.Running(), false, "running")
}

func TestFreePortsAreDistinct(t *testing.T) {
	ports, err := freePorts(16)
	requireNoErr(t, err, "free ports")
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v: %d is invalid or repeated", ports, p)
		}
		seen[p] = true
	}
}

func TestKillAndStopAreNoOpsWhenDown(t *testing.T) {
	var never Server
	never.Kill()
	never.Stop()
	requireEqual(t, never.Running(), false, "running")

	s := Start(t)
	s.Kill()
	s.Kill()
	s.Stop()
	requireEqual(t, s.Running(), false, "running")
	if err := s.exitError(); err == nil || errors.Is(err, errAddrInUse) {
		t.Fatalf("exit error = %v, want a plain exit", err)
	}
}

func TestRestartOfARunningServerFails(t *testing.T) {
	s := Start(t)
	pid := s.Cmd.Process.Pid
	ft := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Restart(ft)
	}()
	<-done
	if !ft.fatal || !strings.Contains(ft.msg, "still running") {
		t.Fatalf("Restart of a running server: fatal=%v %q", ft.fatal, ft.msg)
	}
	requireEqual(t, s.Cmd.Process.Pid, pid, "pid")
	requireEqual(t, s.Running(), true, "running")
}

func TestStartRejectsInvalidOptions(t *testing.T) {
	ft := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(ft, WithPort(-1))
	}()
	<-done
	if !ft.fatal || !strings.Contains(ft.msg, ErrInvalidOption.Error()) {
		t.Fatalf("Start with a bad option: fatal=%v %q", ft.fatal, ft.msg)
	}
}
