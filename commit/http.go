package commit

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/multiverse-orchestrator/multiverse/task"
)

// httpTimeout bounds one request of httpGet (one ask of the confirm
// probe).
const httpTimeout = 15 * time.Second

// httpGet fetches a URL with a timeout, reading at most 4 MiB.
func httpGet(ctx context.Context, client *http.Client, u string) ([]byte, int, error) {
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, httpTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("User-Agent", task.DefaultUserAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return b, resp.StatusCode, err
}
