package natstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// errBadJSZ is wrapped by decodeJSZ's errors.
var errBadJSZ = errors.New("natstest: bad /jsz document")

// maxJSZBytes bounds the /jsz document read from a server.
const maxJSZBytes = 1 << 20

// jsz is the part of a server's /jsz monitoring document the helpers read.
type jsz struct {
	ServerID string    `json:"server_id"`
	Disabled bool      `json:"disabled"`
	Config   jszConfig `json:"config"`
	Meta     *jszMeta  `json:"meta_cluster"`
	Streams  int       `json:"streams"`
	Messages uint64    `json:"messages"`
}

// jszConfig is the server's JetStream configuration.
type jszConfig struct {
	StoreDir   string `json:"store_dir"`
	SyncAlways bool   `json:"sync_always"`
	MaxStore   int64  `json:"max_storage"`
}

// jszMeta is the server's view of the JetStream meta group. Only the meta
// leader knows which peers are current; a follower lists the leader and
// the other followers with stale flags.
type jszMeta struct {
	Name     string     `json:"name"`
	Leader   string     `json:"leader"`
	Size     int        `json:"cluster_size"`
	Replicas []*jszPeer `json:"replicas"`
}

// jszPeer is one peer of the meta group as the reporting server sees it.
type jszPeer struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	Offline bool   `json:"offline"`
}

// decodeJSZ decodes a /jsz document. It rejects anything that is not one
// JSON object, a server that reports JetStream disabled, and peers without
// a name.
func decodeJSZ(data []byte) (jsz, error) {
	var doc jsz
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return jsz{}, fmt.Errorf("%w: %v", errBadJSZ, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return jsz{}, fmt.Errorf("%w: trailing data after the document", errBadJSZ)
	}
	if doc.ServerID == "" {
		return jsz{}, fmt.Errorf("%w: no server_id", errBadJSZ)
	}
	if doc.Disabled {
		return jsz{}, fmt.Errorf("%w: JetStream is disabled on server %s", errBadJSZ, doc.ServerID)
	}
	if doc.Meta != nil {
		for i, p := range doc.Meta.Replicas {
			if p == nil || p.Name == "" {
				return jsz{}, fmt.Errorf("%w: meta_cluster.replicas[%d] has no name", errBadJSZ, i)
			}
		}
	}
	return doc, nil
}

// clusterHealthy checks the /jsz views of the running members of a
// cluster, keyed by server name: every view names the same meta leader, the
// leader is one of them, and the leader lists every other running member as
// a current, online peer. Members that are down are simply absent from
// views; they do not count against health. The error says what is missing,
// the same way for the same input.
func clusterHealthy(views map[string]jsz) error {
	if len(views) == 0 {
		return errors.New("no running servers")
	}
	names := make([]string, 0, len(views))
	for n := range views {
		names = append(names, n)
	}
	slices.Sort(names)
	leader := ""
	for _, n := range names {
		v := views[n]
		if v.Meta == nil {
			return fmt.Errorf("%s reports no meta group (not clustered?)", n)
		}
		if v.Meta.Leader == "" {
			return fmt.Errorf("%s sees no meta leader", n)
		}
		if leader == "" {
			leader = v.Meta.Leader
		} else if v.Meta.Leader != leader {
			return fmt.Errorf("%s sees meta leader %s, others see %s", n, v.Meta.Leader, leader)
		}
	}
	lv, ok := views[leader]
	if !ok {
		return fmt.Errorf("meta leader %s is not a running member", leader)
	}
	var lagging []string
	for _, n := range names {
		if n == leader {
			continue
		}
		i := slices.IndexFunc(lv.Meta.Replicas, func(p *jszPeer) bool { return p.Name == n })
		switch {
		case i < 0:
			lagging = append(lagging, n+" (unknown to the leader)")
		case lv.Meta.Replicas[i].Offline:
			lagging = append(lagging, n+" (offline)")
		case !lv.Meta.Replicas[i].Current:
			lagging = append(lagging, n+" (not current)")
		}
	}
	if len(lagging) > 0 {
		return fmt.Errorf("meta leader %s: peers %s", leader, strings.Join(lagging, ", "))
	}
	return nil
}

// fetchJSZ reads and decodes the /jsz document of the server at
// monitorURL.
func fetchJSZ(ctx context.Context, monitorURL string) (jsz, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, monitorURL+"/jsz", nil)
	if err != nil {
		return jsz{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return jsz{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return jsz{}, fmt.Errorf("GET %s/jsz: %s", monitorURL, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJSZBytes))
	if err != nil {
		return jsz{}, err
	}
	return decodeJSZ(data)
}
