package evidence

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
)

// SealedSuffix marks the ledger artifact that holds a sealed document:
// "invoice.sealed" holds the sealed bytes of "invoice".
const SealedSuffix = ".sealed"

// SealedName is the ledger artifact name of evidence name's sealed bytes.
func SealedName(name string) string { return name + SealedSuffix }

// Put seals plain under k, stores the sealed bytes in store and records
// both digests in arts: name -> the plaintext digest, SealedName(name) ->
// the sealed artifact's digest. Nothing is recorded when it fails; with a
// nil key it fails with ErrNoKey and stores nothing.
func Put(ctx context.Context, store *artifacts.FS, k *Key, arts map[string]string, name string, plain []byte) error {
	if k == nil {
		return fmt.Errorf("%w: %s is not kept in clear", ErrNoKey, name)
	}
	sealed, err := k.Seal(plain)
	if err != nil {
		return err
	}
	d, err := store.Put(ctx, sealed)
	if err != nil {
		return fmt.Errorf("evidence: storing %s: %w", name, err)
	}
	arts[name] = string(artifacts.Sum(plain))
	arts[SealedName(name)] = string(d)
	return nil
}

// Read returns evidence name of a ledger row (its artifacts map arts):
// sealed evidence decrypted with k, plain evidence as stored, in both
// cases checked against the plaintext digest the row records.
func Read(ctx context.Context, store *artifacts.FS, k *Key, arts map[string]string, name string) ([]byte, error) {
	name = strings.TrimSuffix(name, SealedSuffix)
	want, ok := arts[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (the row holds %s)", ErrNoEvidence, name, strings.Join(Names(arts), ", "))
	}
	sd, sealed := arts[SealedName(name)]
	if !sealed {
		d, err := artifacts.ParseDigest(want)
		if err != nil {
			return nil, fmt.Errorf("evidence %s: %w", name, err)
		}
		return store.Get(ctx, d)
	}
	if k == nil {
		return nil, fmt.Errorf("%w: %s is sealed", ErrNoKey, name)
	}
	d, err := artifacts.ParseDigest(sd)
	if err != nil {
		return nil, fmt.Errorf("evidence %s: %w", SealedName(name), err)
	}
	data, err := store.Get(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("evidence %s: %w", SealedName(name), err)
	}
	plain, err := k.Open(data)
	if err != nil {
		return nil, fmt.Errorf("evidence %s (%s): %w", name, store.Path(d), err)
	}
	if got := artifacts.Sum(plain); string(got) != want {
		return nil, fmt.Errorf("%w: %s decrypts to sha256:%s, the ledger records sha256:%s", ErrMismatch, name, got.Hex(), want)
	}
	return plain, nil
}

// Names lists the evidence names of a ledger row: its artifacts without
// the sealed companions, sorted.
func Names(arts map[string]string) []string {
	out := make([]string, 0, len(arts))
	for n := range arts {
		if base, ok := strings.CutSuffix(n, SealedSuffix); ok {
			if _, paired := arts[base]; paired {
				continue
			}
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Report is what Verify checked.
type Report struct {
	// Artifacts is the number of stored artifacts checked against their
	// digests; Sealed the sealed ones among them; Decrypted the sealed
	// ones opened with the key and matched to their plaintext digest.
	Artifacts, Sealed, Decrypted int
}

// Verify audits the evidence of one ledger row offline. Every stored
// artifact is re-hashed against its digest (sealed ones too, so a flipped
// byte is named without the key); when k is not nil each sealed artifact
// must also authenticate and decrypt to the plaintext digest the row
// records. Each problem names the artifact and its file.
func Verify(ctx context.Context, store *artifacts.FS, k *Key, arts map[string]string, rep *Report) error {
	var errs []error
	for _, name := range Names(arts) {
		sd, sealed := arts[SealedName(name)]
		if !sealed {
			rep.Artifacts++
			errs = append(errs, verifyStored(ctx, store, name, arts[name]))
			continue
		}
		rep.Artifacts++
		rep.Sealed++
		if _, err := artifacts.ParseDigest(arts[name]); err != nil {
			errs = append(errs, fmt.Errorf("artifact %s: %v", name, err))
			continue
		}
		if err := verifyStored(ctx, store, SealedName(name), sd); err != nil || k == nil {
			errs = append(errs, err)
			continue
		}
		if _, err := Read(ctx, store, k, arts, name); err != nil {
			errs = append(errs, fmt.Errorf("artifact %s: %w", name, err))
			continue
		}
		rep.Decrypted++
	}
	return errors.Join(errs...)
}

func verifyStored(ctx context.Context, store *artifacts.FS, name, digest string) error {
	d, err := artifacts.ParseDigest(digest)
	if err != nil {
		return fmt.Errorf("artifact %s: %v", name, err)
	}
	if err := store.Verify(ctx, d); err != nil {
		return fmt.Errorf("artifact %s (%s): %v", name, store.Path(d), err)
	}
	return nil
}
