// Package natstest runs real nats-server processes for the tests of
// Multiverse's distributed mode: one JetStream server that a test can kill
// -9 and restart on the same store, or a JetStream cluster on loopback whose
// nodes a test can take down one at a time.
//
// The executable is built by [Binary] from the nats-server module version
// that go.mod pins, the same code the embedded server of package bus runs,
// so a test against an external server exercises the same release. It is
// never a system package: Debian's nats-server (2.9.10) predates the fixes
// for acknowledged writes lost after kill -9 (2.10.23).
//
// # Invariants
//
//   - Every server listens on 127.0.0.1 only, on ports picked free at start
//     (see [Start] for the small race this leaves), with its JetStream file
//     store in the test's t.TempDir() and sync_interval "always": every
//     write is fsynced before the publish is acknowledged, so a message
//     acknowledged before [Server.Kill] is there after [Server.Restart].
//   - [Start] and [StartCluster] return only servers that accept
//     connections and answer a JetStream account info request; a cluster is
//     returned only once its meta leader is elected, every peer is current
//     and a stream replicated to every node can be created and deleted.
//   - Every process is stopped when the test ends (SIGTERM, then SIGKILL
//     after 5 s) before its temporary directory is removed. On Linux a
//     server also gets SIGKILL if the test binary dies first.
//   - Helpers that can fail take a testing.TB and fail the test with the
//     server's log tail; [Server.Kill] and [Server.Stop] cannot fail and take
//     none. Nothing here panics.
//
// The helpers need a Unix system (signals) and the go command on PATH, which
// `go test` provides.
package natstest
