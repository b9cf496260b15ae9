package browser

import (
	"context"
	"log/slog"
	"sync"
)

// Keeper keeps one Chromium for whoever asks: launched on the first Get,
// launched again when the one it kept died. Safe for concurrent use.
type Keeper struct {
	opts Options
	log  *slog.Logger

	mu sync.Mutex
	rt *Runtime
}

// NewKeeper returns a keeper that launches Chromium with opts; log (nil
// for none) hears of each relaunch.
func NewKeeper(opts Options, log *slog.Logger) *Keeper {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Keeper{opts: opts, log: log}
}

// Get returns the running browser, launching it when there is none or
// the one kept died.
func (k *Keeper) Get(ctx context.Context) (*Runtime, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.rt != nil && k.rt.Err() == nil {
		return k.rt, nil
	}
	if k.rt != nil {
		k.log.Warn("relaunching Chromium", "reason", k.rt.Err())
		k.rt.Close()
		k.rt = nil
	}
	rt, err := Launch(ctx, k.opts)
	if err != nil {
		return nil, err
	}
	k.rt = rt
	return rt, nil
}

// Close closes the browser kept, if any; a later Get launches another.
func (k *Keeper) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.rt == nil {
		return nil
	}
	err := k.rt.Close()
	k.rt = nil
	return err
}
