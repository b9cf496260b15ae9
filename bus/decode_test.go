package bus

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

func TestDecodeJob(t *testing.T) {
	hdr := func(run, branch string) nats.Header {
		h := nats.Header{}
		if run != "" {
			h.Set(HeaderRunID, run)
		}
		if branch != "" {
			h.Set(HeaderBranchID, branch)
		}
		return h
	}
	tests := []struct {
		name      string
		subject   string
		header    nats.Header
		delivered uint64
		wantErr   string
		attempt   int // 0: delivered
	}{
		{"ok", "mv.jobs.r1", hdr("r1", "b1"), 1, "", 0},
		{"ok without run header", "mv.jobs.r1", hdr("", "b1"), 3, "", 0},
		{"wrong prefix", "mv.results.r1", hdr("r1", "b1"), 1, "subject", 0},
		{"routed subject", "mv.jobs.r1.x", hdr("r1", "b1"), 1, "", 0},
		{"nested subject", "mv.jobs.r1.x.y", hdr("r1", "b1"), 1, "subject", 0},
		{"empty route", "mv.jobs.r1.", hdr("r1", "b1"), 1, "subject", 0},
		{"empty run", "mv.jobs.", hdr("", "b1"), 1, "subject", 0},
		{"run mismatch", "mv.jobs.r1", hdr("r2", "b1"), 1, "does not match", 0},
		{"no branch", "mv.jobs.r1", hdr("r1", ""), 1, HeaderBranchID, 0},
		{"bad branch", "mv.jobs.r1", hdr("r1", "b.1"), 1, HeaderBranchID, 0},
		{"not delivered", "mv.jobs.r1", hdr("r1", "b1"), 0, "delivery count", 0},
		{"attempt base", "mv.jobs.r1", withBase(hdr("r1", "b1"), "2"), 1, "", 3},
		{"bad attempt base", "mv.jobs.r1", withBase(hdr("r1", "b1"), "-1"), 1, HeaderAttemptBase, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job, err := decodeJob(tc.subject, tc.header, []byte("d"), tc.delivered)
			if tc.wantErr != "" {
				if !errors.Is(err, ErrMalformedMessage) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want malformed message mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if job.RunID != "r1" || job.BranchID != "b1" || job.Attempt != max(tc.attempt, int(tc.delivered)) || string(job.Data) != "d" {
				t.Fatalf("decoded %+v", job)
			}
			job.Header.Set("X-Mutated", "1")
			if tc.header.Get("X-Mutated") != "" {
				t.Fatal("job header shares the message's map")
			}
		})
	}
}

func withBase(h nats.Header, base string) nats.Header {
	h.Set(HeaderAttemptBase, base)
	return h
}

func TestDecodeAdvisoryFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "advisory", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			adv, err := decodeAdvisory(data)
			if strings.HasPrefix(filepath.Base(file), "bad-") {
				if !errors.Is(err, ErrMalformedMessage) {
					t.Fatalf("err = %v, want ErrMalformedMessage", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if adv.Stream != JobsStream || adv.StreamSeq != 42 || adv.Deliveries != 4 || adv.Consumer != DefaultConsumer {
				t.Fatalf("decoded %+v", adv)
			}
		})
	}
}

// TestDecodeAdvisoryServerSchema decodes the advisory exactly as the embedded
// server type marshals it, so a schema change in the server breaks this test
// rather than DeadJobs in production.
func TestDecodeAdvisoryServerSchema(t *testing.T) {
	e := server.JSConsumerDeliveryExceededAdvisory{
		TypedEvent: server.TypedEvent{Type: server.JSConsumerDeliveryExceededAdvisoryType, ID: "x", Time: time.Now()},
		Stream:     JobsStream,
		Consumer:   DefaultConsumer,
		StreamSeq:  7,
		Deliveries: 4,
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	adv, err := decodeAdvisory(data)
	if err != nil {
		t.Fatal(err)
	}
	if adv.StreamSeq != 7 || adv.Deliveries != 4 || adv.Stream != JobsStream {
		t.Fatalf("decoded %+v from %s", adv, data)
	}
	if want := server.JSAdvisoryConsumerMaxDeliveryExceedPre + "." + JobsStream + ".*"; DeadSubjects != want {
		t.Fatalf("advisory subject drifted: server %s, ours %s", want, DeadSubjects)
	}
}

func TestDecodeControl(t *testing.T) {
	tests := []struct {
		subject, data, want string
		ok                  bool
	}{
		{"mv.control.r1", "cancel", "r1", true},
		{"mv.control.r1", "pause", "", false},
		{"mv.control.r1.x", "cancel", "", false},
		{"mv.jobs.r1", "cancel", "", false},
		{"mv.control.", "cancel", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.subject+"/"+tc.data, func(t *testing.T) {
			got, err := decodeControl(tc.subject, []byte(tc.data))
			if tc.ok != (err == nil) || got != tc.want {
				t.Fatalf("decodeControl = %q, %v", got, err)
			}
		})
	}
}

func TestBackoffFor(t *testing.T) {
	o := defaultOptions()
	if err := WithBackoff(time.Second, 2*time.Second)(&o); err != nil {
		t.Fatal(err)
	}
	for attempt, want := range map[int]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 9: 2 * time.Second} {
		if got := o.backoffFor(attempt); got != want {
			t.Errorf("backoffFor(%d) = %s, want %s", attempt, got, want)
		}
	}
}

func FuzzDecodeJob(f *testing.F) {
	f.Add("mv.jobs.r1", "r1", "b1", []byte("data"), uint64(1))
	f.Add("mv.jobs.01HZX3", "", "01HZY4", []byte{}, uint64(4))
	f.Add("mv.jobs.r.1", "r", "b", []byte(nil), uint64(0))
	f.Add("mv.jobs.r.0", "r", "b", []byte(nil), uint64(1))
	f.Add("mv.jobs.r.0.1", "r", "b", []byte(nil), uint64(1))
	f.Add("mv.jobs.\xff", "\xff", "b*", []byte("x"), uint64(1<<40))
	f.Fuzz(func(t *testing.T, subject, run, branch string, data []byte, delivered uint64) {
		h := nats.Header{HeaderRunID: {run}, HeaderBranchID: {branch}}
		job, err := decodeJob(subject, h, data, delivered)
		if err != nil {
			if !errors.Is(err, ErrMalformedMessage) {
				t.Fatalf("error %v does not wrap ErrMalformedMessage", err)
			}
			return
		}
		if validateID("run", job.RunID) != nil || validateID("branch", job.BranchID) != nil {
			t.Fatalf("accepted invalid ids %q %q", job.RunID, job.BranchID)
		}
		// The subject is the run's shared subject or one routed to a
		// worker: mv.jobs.<run_id>[.<route>].
		route, routed := strings.CutPrefix(subject, jobsPrefix+job.RunID+".")
		shared := subject == jobsPrefix+job.RunID
		if !shared && (!routed || validateID("route", route) != nil) || job.Attempt < 1 {
			t.Fatalf("decoded %+v from %q", job, subject)
		}
		// What a worker publishes for this job decodes back to it.
		res, err := decodeResult(resultsPrefix+job.RunID, resultHeader(job), data, 1)
		if err != nil {
			t.Fatalf("result of a valid job does not decode: %v", err)
		}
		if res.RunID != job.RunID || res.BranchID != job.BranchID || res.Attempt != job.Attempt {
			t.Fatalf("result %+v does not match job %+v", res, job)
		}
	})
}

func FuzzDecodeResult(f *testing.F) {
	f.Add("mv.results.r1", "r1", "b1", "1", []byte("ok"))
	f.Add("mv.results.r1", "r1", "b1", "+2", []byte(nil))
	f.Add("mv.results.r1", "r2", "b1", "1", []byte(nil))
	f.Add("mv.results.r1", "r1", "", "-1", []byte(nil))
	f.Add("mv.results.r1", "r1", "b1", "99999999999999999999", []byte(nil))
	f.Fuzz(func(t *testing.T, subject, run, branch, attempt string, data []byte) {
		h := nats.Header{HeaderRunID: {run}, HeaderBranchID: {branch}, HeaderAttempt: {attempt}}
		res, err := decodeResult(subject, h, data, 3)
		if err != nil {
			if !errors.Is(err, ErrMalformedMessage) {
				t.Fatalf("error %v does not wrap ErrMalformedMessage", err)
			}
			return
		}
		if validateID("run", res.RunID) != nil || validateID("branch", res.BranchID) != nil || res.Attempt < 1 {
			t.Fatalf("accepted %+v", res)
		}
		if res.Header.Get(HeaderAttempt) != attempt {
			t.Fatalf("header not passed through: %+v", res)
		}
	})
}

func FuzzDecodeAdvisory(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "advisory", "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`null`))
	f.Add([]byte(`{"type":"io.nats.jetstream.advisory.v1.max_deliver","stream":"S","stream_seq":18446744073709551615}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		adv, err := decodeAdvisory(data)
		if err != nil {
			if !errors.Is(err, ErrMalformedMessage) {
				t.Fatalf("error %v does not wrap ErrMalformedMessage", err)
			}
			return
		}
		if adv.Type != maxDeliveriesType || adv.Stream == "" || adv.StreamSeq == 0 {
			t.Fatalf("accepted %+v", adv)
		}
	})
}

func FuzzDecodeControl(f *testing.F) {
	f.Add("mv.control.r1", []byte("cancel"))
	f.Add("mv.control.r1", []byte("CANCEL"))
	f.Add("mv.control.>", []byte("cancel"))
	f.Fuzz(func(t *testing.T, subject string, data []byte) {
		run, err := decodeControl(subject, data)
		if err != nil {
			if !errors.Is(err, ErrMalformedMessage) {
				t.Fatalf("error %v does not wrap ErrMalformedMessage", err)
			}
			return
		}
		if subject != controlPrefix+run || string(data) != cancelCommand || validateID("run", run) != nil {
			t.Fatalf("accepted %q %q -> %q", subject, data, run)
		}
	})
}
