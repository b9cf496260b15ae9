package bus

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Defaults of [ServerConfig].
const (
	DefaultHost       = "127.0.0.1"
	DefaultServerName = "multiverse"

	// defaultStartTimeout bounds StartEmbedded when ctx has no deadline.
	defaultStartTimeout = 30 * time.Second
)

// ServerConfig configures the embedded NATS server. The zero value is not
// usable: StoreDir is required.
type ServerConfig struct {
	// StoreDir is where the JetStream file store lives (the data dir's nats/
	// folder). Required. Restarting on the same StoreDir keeps the streams,
	// the consumers and every unacked job.
	StoreDir string
	// Host is the listen address, default "127.0.0.1". Use "0.0.0.0" (or a
	// public address) so remote workers can join.
	Host string
	// Port is the client port; 0 picks a free port. A fixed port lets remote
	// workers join.
	Port int
	// Name is the server name, default "multiverse".
	Name string
	// MaxStore bounds the bytes the file store may hold; 0 means the
	// server's default, 75% of the disk space free when it starts. A
	// store at its limit refuses messages as a full disk does.
	MaxStore int64
	// Logger receives the server's own log lines (notices at Info, warnings at
	// Warn, errors at Error, debug and trace at Debug). Nil means the server
	// logs nothing: it never writes to stdout or stderr.
	Logger *slog.Logger
}

// Server is a running embedded NATS server with JetStream enabled.
type Server struct {
	ns       *server.Server
	storeDir string
	// full ends, with a cause wrapping ErrStorageFull, the first time the
	// server cannot store a message for lack of space.
	full context.Context
}

// StartEmbedded starts a NATS server in this process with JetStream on a file
// store in cfg.StoreDir that fsyncs every write before acknowledging it. The
// server installs no signal handlers and logs only to cfg.Logger. It returns
// once the server accepts connections; if that does not happen before ctx ends
// (30s when ctx has no deadline) or the server fails (for example the port is
// taken), the server is shut down and an error wrapping [ErrServerStart] is
// returned. A bad cfg returns an error wrapping [ErrInvalidConfig].
func StartEmbedded(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if cfg.StoreDir == "" {
		return nil, fmt.Errorf("%w: StoreDir is required", ErrInvalidConfig)
	}
	if cfg.MaxStore < 0 {
		return nil, fmt.Errorf("%w: negative MaxStore %d", ErrInvalidConfig, cfg.MaxStore)
	}
	if cfg.Port < 0 || cfg.Port > 65535 {
		return nil, fmt.Errorf("%w: port %d not in 0..65535", ErrInvalidConfig, cfg.Port)
	}
	if cfg.Host == "" {
		cfg.Host = DefaultHost
	}
	if cfg.Name == "" {
		cfg.Name = DefaultServerName
	}
	if cfg.Port != 0 {
		// The server reports a listen failure only in its log; ask first so
		// the caller learns which address is at fault.
		if err := canListen(cfg.Host, cfg.Port); err != nil {
			return nil, err
		}
	}
	port := cfg.Port
	if port == 0 {
		port = server.RANDOM_PORT
	}
	opts := &server.Options{
		ServerName: cfg.Name,
		Host:       cfg.Host,
		Port:       port,
		JetStream:  true,
		StoreDir:   cfg.StoreDir,
		SyncAlways: true,
		// JetStreamMaxStore 0 lets the server size it from the disk.
		JetStreamMaxStore: cfg.MaxStore,
		NoSigs:            true,
		NoLog:             true,
		// No HTTP monitoring, no cluster, no leafnodes: a single process
		// server. deploy/ configures clusters for the distributed mode.
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	logger := newServerLogger(cfg.Logger, cfg.StoreDir)
	debug := cfg.Logger != nil && cfg.Logger.Enabled(ctx, slog.LevelDebug)
	ns.SetLoggerV2(logger, debug, false, false)

	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultStartTimeout)
		defer cancel()
	}
	ns.Start()
	for {
		if ns.ReadyForConnections(25 * time.Millisecond) {
			return &Server{ns: ns, storeDir: cfg.StoreDir, full: logger.full}, nil
		}
		select {
		case ferr := <-logger.fatal:
			shutdown(ns)
			return nil, fmt.Errorf("%w: %w", ErrServerStart, ferr)
		case <-ctx.Done():
			shutdown(ns)
			return nil, fmt.Errorf("%w: not ready: %w", ErrServerStart, ctx.Err())
		default:
		}
	}
}

// ClientURL returns the URL clients use to reach the server, with the port
// actually bound (useful when Port was 0).
func (s *Server) ClientURL() string { return s.ns.ClientURL() }

// StoreDir is the directory of the server's JetStream file store.
func (s *Server) StoreDir() string { return s.storeDir }

// StorageFull returns a channel closed the first time the server could
// not store a message for lack of space; [Server.StorageErr] says why.
func (s *Server) StorageFull() <-chan struct{} { return s.full.Done() }

// StorageErr returns nil, or, once the server could not store a message
// for lack of space, an error wrapping [ErrStorageFull] that names the
// store directory and what the server reported. A full disk gets no
// answer on the wire (the server only logs it), so this is where it shows.
func (s *Server) StorageErr() error { return context.Cause(s.full) }

// Shutdown stops the server and waits until it has stopped; the file store
// is flushed and closed. It is safe to call more than once.
func (s *Server) Shutdown() { shutdown(s.ns) }

func shutdown(ns *server.Server) {
	ns.Shutdown()
	ns.WaitForShutdown()
}

// serverLogger adapts the server's logger interface to slog, remembers the
// first fatal error so StartEmbedded can report it, and notices when the
// store runs out of space.
type serverLogger struct {
	l     *slog.Logger
	fatal chan error
	dir   string
	full  context.Context
	fill  context.CancelCauseFunc
}

var _ server.Logger = (*serverLogger)(nil)

func newServerLogger(l *slog.Logger, dir string) *serverLogger {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	full, fill := context.WithCancelCause(context.Background())
	return &serverLogger{l: l.With("component", "nats-server"), fatal: make(chan error, 1), dir: dir, full: full, fill: fill}
}

// outOfSpace are the server's words for a store that cannot take a
// message: the disk is full (the server matches the same text), or the
// store reached its MaxStore limit.
var outOfSpace = []string{"no space left on device", "resource limits exceeded"}

func (s *serverLogger) noteStorage(msg string) {
	for _, w := range outOfSpace {
		if strings.Contains(msg, w) {
			s.fill(fmt.Errorf("%w: the JetStream store in %s: %s", ErrStorageFull, s.dir, msg))
			return
		}
	}
}

func (s *serverLogger) Noticef(format string, v ...any) { s.l.Info(fmt.Sprintf(format, v...)) }
func (s *serverLogger) Warnf(format string, v ...any)   { s.l.Warn(fmt.Sprintf(format, v...)) }

func (s *serverLogger) Errorf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	s.l.Error(msg)
	s.noteStorage(msg)
}

func (s *serverLogger) Debugf(format string, v ...any) { s.l.Debug(fmt.Sprintf(format, v...)) }
func (s *serverLogger) Tracef(format string, v ...any) { s.l.Debug(fmt.Sprintf(format, v...)) }

// Fatalf logs at Error and records the error; it never exits the process.
func (s *serverLogger) Fatalf(format string, v ...any) {
	err := fmt.Errorf(format, v...)
	s.l.Error(err.Error(), "fatal", true)
	select {
	case s.fatal <- err:
	default:
	}
}

// canListen binds host:port for a moment and reports an error wrapping
// [ErrListen] and [ErrServerStart] when that fails.
func canListen(host string, port int) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%w: %w: %s: %w", ErrServerStart, ErrListen, addr, err)
	}
	return ln.Close()
}
