// Package e2e holds Multiverse's cross-process end-to-end tests: real
// worker processes, real nats-server processes and clusters, real
// Chromium, the demo site and SQLite, with faults injected by signals
// (kill -9, SIGSTOP) and server restarts. It has no code of its own.
package e2e
