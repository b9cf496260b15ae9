package natstest

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// TestClusterR3StreamSurvivesLosingItsLeader forms a three-node cluster,
// kills -9 the node leading an R3 stream, publishes and reads through the
// two survivors, then restarts the node and waits until it has caught up.
func TestClusterR3StreamSurvivesLosingItsLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("a three-node cluster takes seconds")
	}
	c := StartCluster(t, 3)
	if got := strings.Count(c.URLs(), ","); got != 2 {
		t.Fatalf("URLs() = %q, want three comma-separated URLs", c.URLs())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()

	js := connect(t, c.URLs())
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{
		Name: "JOBS", Subjects: []string{"jobs.>"}, Storage: jetstream.FileStorage,
		Replicas: 3, Retention: jetstream.WorkQueuePolicy,
	})
	requireNoErr(t, err, "create R3 stream")
	publishUntil(ctx, t, js, "jobs.run1", []byte("before"))

	info, err := st.Info(ctx)
	requireNoErr(t, err, "stream info")
	if info.Cluster == nil || info.Cluster.Leader == "" {
		t.Fatalf("stream cluster info = %+v, want a leader", info.Cluster)
	}
	i := slices.IndexFunc(c.Servers, func(s *Server) bool { return s.Name == info.Cluster.Leader })
	if i < 0 {
		t.Fatalf("stream leader %q is not a cluster member", info.Cluster.Leader)
	}
	victim := c.Servers[i]
	victim.Kill()
	requireEqual(t, victim.Running(), false, "victim running")

	// A new stream leader is elected among the two survivors.
	publishUntil(ctx, t, js, "jobs.run1", []byte("after"))
	eventually(t, 20*time.Second, "both messages readable", func(ctx context.Context) error {
		for seq, want := range map[uint64]string{1: "before", 2: "after"} {
			m, err := st.GetMsg(ctx, seq)
			if err != nil {
				return fmt.Errorf("message %d: %w", seq, err)
			}
			if string(m.Data) != want {
				return fmt.Errorf("message %d = %q, want %q", seq, m.Data, want)
			}
		}
		info, err := st.Info(ctx)
		if err != nil {
			return err
		}
		if info.Cluster.Leader == victim.Name || info.Cluster.Leader == "" {
			return fmt.Errorf("stream leader is %q", info.Cluster.Leader)
		}
		return nil
	})

	victim.Restart(t)
	c.WaitHealthy(t)
	eventually(t, 20*time.Second, "restarted replica current", func(ctx context.Context) error {
		info, err := st.Info(ctx)
		if err != nil {
			return err
		}
		if info.State.Msgs != 2 {
			return fmt.Errorf("%d messages, want 2", info.State.Msgs)
		}
		if len(info.Cluster.Replicas) != 2 {
			return fmt.Errorf("%d replicas besides the leader, want 2", len(info.Cluster.Replicas))
		}
		for _, r := range info.Cluster.Replicas {
			if !r.Current || r.Offline {
				return fmt.Errorf("replica %s current=%v offline=%v", r.Name, r.Current, r.Offline)
			}
		}
		return nil
	})
}

func TestStartClusterRejectsBadSizes(t *testing.T) {
	for _, n := range []int{-1, 0, 1, MaxClusterSize + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ft := &fatalRecorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				StartCluster(ft, n)
			}()
			<-done
			if !ft.fatal || !strings.Contains(ft.msg, "not in 2..") {
				t.Fatalf("StartCluster(%d): fatal=%v %q, want a size error", n, ft.fatal, ft.msg)
			}
		})
	}
}

// fatalRecorder is a testing.TB whose Fatalf records the message and ends
// the calling goroutine, as the real one does, without failing the test.
type fatalRecorder struct {
	testing.TB
	fatal bool
	msg   string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.fatal, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalRecorder) Fatal(args ...any) {
	f.fatal, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
