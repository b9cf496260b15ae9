package dashboard

import "errors"

// ErrNotFound is matched by errors for a run, branch or artifact the
// records do not hold; the API answers 404.
var ErrNotFound = errors.New("dashboard: not found")

// ErrNonLoopback is matched by the error CheckAddr returns for an address
// that is not loopback when no token is set.
var ErrNonLoopback = errors.New("dashboard: refusing to listen on a non-loopback address without a token")

// ErrReplayBusy: a replay is already running (one at a time).
var ErrReplayBusy = errors.New("dashboard: a replay is already running")
