package sites

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server is a running HTTP server for a handler, usually a [Vendor].
type Server struct {
	srv    *http.Server
	url    string
	cancel context.CancelFunc
	done   chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Serve listens on addr ("127.0.0.1:0" picks a free port; "" means that) and
// serves h in the background. It returns once the listener is open, so
// URL is immediately usable; ctx bounds only the listen call. Stop the server
// with [Server.Close].
func Serve(ctx context.Context, h http.Handler, addr string) (*Server, error) {
	if h == nil {
		return nil, errors.New("sites: serve: nil handler")
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sites: listen on %s: %w", addr, err)
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Server{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			BaseContext:       func(net.Listener) context.Context { return base },
		},
		url:    "http://" + ln.Addr().String(),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

// URL returns the base URL, "http://127.0.0.1:PORT", without a trailing
// slash.
func (s *Server) URL() string { return s.url }

// Close stops accepting connections, cancels the context of in-flight
// requests (so slow, hanging and latency-delayed responses end at once) and
// waits until their handlers return or ctx ends; in the latter case it closes
// the remaining connections and returns ctx's error. Calling Close again
// returns the first result.
func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
			s.closeErr = fmt.Errorf("sites: close server: %w", err)
			return
		}
		<-s.done
	})
	return s.closeErr
}
