// Package dashboard serves a local web UI and a JSON API over a
// Multiverse data dir (or one replay bundle): the runs, each run's branch
// tree coloured by score, a branch's steps with before/after screenshots
// and the explanation of how it ended, the commit ledger with its
// verification, live updates while a run is in progress, and a one-click
// strict replay of a branch.
//
// # Invariants
//
//   - Read-only: the stores are opened read-only by the caller and the
//     server never writes to the data dir. The one action, POST
//     .../replay, runs a strict replay (package replay) against the
//     recording in a fresh browser: it never reaches the site and never
//     sends a guarded request.
//   - Offline: every asset is embedded; the page loads nothing from
//     elsewhere.
//   - Access: with a token, every request must carry it (Authorization:
//     Bearer, or ?token=); without one, only loopback Host headers are
//     served (against DNS rebinding), and [CheckAddr] refuses to listen
//     anywhere but loopback.
//   - Artifacts are served as images, PDF, plain text or octet-stream,
//     never as HTML or SVG, and with a sandboxing Content-Security-Policy:
//     a recorded page cannot run script on the dashboard's origin.
package dashboard
