package bus

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
)

// ObjectBucket is the JetStream object store holding artifacts that
// workers on other machines produce (DOM snapshots, screenshots, response
// bodies), named by their sha256.
const ObjectBucket = "MV_ARTIFACTS"

// ErrObjectCorrupt: an object's bytes do not hash to its name.
var ErrObjectCorrupt = errors.New("bus: artifact object does not match its digest")

// Objects is the artifact object store. It implements the artifact putter
// workers need and a digest-checked Get.
type Objects struct {
	os jetstream.ObjectStore
}

// Objects opens (creating it when missing) the artifact object store.
func (c *Client) Objects(ctx context.Context) (*Objects, error) {
	cfg := jetstream.ObjectStoreConfig{Bucket: ObjectBucket, Description: "Multiverse artifacts by sha256",
		Storage: jetstream.FileStorage, Replicas: c.opts.replicas}
	var st jetstream.ObjectStore
	err := retryAPI(ctx, func(ctx context.Context) (err error) {
		st, err = c.js.ObjectStore(ctx, ObjectBucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			st, err = c.js.CreateObjectStore(ctx, cfg)
			if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) || errors.Is(err, jetstream.ErrBucketExists) {
				st, err = c.js.ObjectStore(ctx, ObjectBucket)
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bus: artifact object store: %w", err)
	}
	return &Objects{os: st}, nil
}

// Put stores data under its sha256 (a no-op when present) and returns the
// digest. Each attempt is bounded: a request the cluster never answers (its
// stream leader was killed mid-put) is asked again until ctx ends, instead
// of holding the branch that produced the artifact until its budget ends.
// Storing under the same name twice is harmless: the name is the content.
func (o *Objects) Put(ctx context.Context, data []byte) (artifacts.Digest, error) {
	d := artifacts.Sum(data)
	err := retryAPI(ctx, func(ctx context.Context) error {
		if _, err := o.os.GetInfo(ctx, string(d)); err == nil {
			return nil
		}
		_, err := o.os.Put(ctx, jetstream.ObjectMeta{Name: string(d)}, bytes.NewReader(data))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("bus: storing artifact %s: %w", d, err)
	}
	return d, nil
}

// objectReadTimeout bounds one attempt at reading an artifact.
const objectReadTimeout = 15 * time.Second

// Get returns the artifact's bytes, checking them against the digest. Each
// attempt is bounded by objectReadTimeout and repeated while ctx lasts: a
// read whose chunks stop arriving (a stream leader killed mid-read) is
// abandoned to finish or fail on its own, and the next attempt reads from
// the newly elected leader instead of holding the caller until ctx ends.
func (o *Objects) Get(ctx context.Context, d artifacts.Digest) ([]byte, error) {
	for {
		actx, cancel := context.WithTimeout(ctx, objectReadTimeout)
		b, err := o.getOnce(actx, d)
		cancel()
		if err == nil || !unanswered(ctx, err) {
			return b, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("bus: fetching artifact %s: %w (last: %v)", d, ctx.Err(), err)
		case <-time.After(apiRetryWait):
		}
	}
}

// getOnce is one bounded attempt of Get: it returns when ctx ends even if
// the object store's read does not.
func (o *Objects) getOnce(ctx context.Context, d artifacts.Digest) ([]byte, error) {
	type got struct {
		b   []byte
		err error
	}
	ch := make(chan got, 1)
	go func() {
		b, err := o.get(ctx, d)
		ch <- got{b, err}
	}()
	select {
	case g := <-ch:
		return g.b, g.err
	case <-ctx.Done():
		return nil, fmt.Errorf("bus: fetching artifact %s: %w", d, ctx.Err())
	}
}

func (o *Objects) get(ctx context.Context, d artifacts.Digest) ([]byte, error) {
	r, err := o.os.Get(ctx, string(d))
	if err != nil {
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			return nil, fmt.Errorf("%w: %s", artifacts.ErrNotFound, d)
		}
		return nil, fmt.Errorf("bus: fetching artifact %s: %w", d, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("bus: reading artifact %s: %w", d, err)
	}
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != string(d) {
		return nil, fmt.Errorf("%w: %s", ErrObjectCorrupt, d)
	}
	return b, nil
}
