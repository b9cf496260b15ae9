package sites_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/sites"
)

// Place an order through the JSON API with an idempotency key; the retry
// replays the first order instead of creating a second one.
func ExampleServe() {
	v, err := sites.NewVendor(sites.VendorOptions{}) // zero knobs: no latency
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	srv, err := sites.Serve(ctx, v, "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close(ctx)

	body := `{"plan":"team","billing":"monthly","seats":10,"country":"DE","email":"buyer@example.com","total_cents":17850}`
	for range 2 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/api/orders", strings.NewReader(body))
		req.Header.Set("Idempotency-Key", "commit:nimbus:team:1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Idempotent-Replayed") == "true")
	}
	o := v.Orders()
	fmt.Println(len(o), o[0].ID, o[0].TotalCents)
	// Output:
	// 201 /api/orders/ORD-100001 false
	// 200 /api/orders/ORD-100001 true
	// 1 ORD-100001 17850
}

// SetKnobs validates; invalid knobs change nothing. Raising PriceFactor
// between exploration and commit makes the order endpoint answer 409.
func ExampleVendor_SetKnobs() {
	v, _ := sites.NewVendor(sites.VendorOptions{})
	k := v.Knobs()
	k.PriceFactor = 1.1
	if err := v.SetKnobs(k); err != nil {
		fmt.Println(err)
	}
	k.ABVariant = "C"
	fmt.Println(v.SetKnobs(k))
	fmt.Println(v.Knobs().PriceFactor)
	// Output:
	// sites: invalid knobs: ab_variant "C" is not one of "", "A", "B", "random"
	// 1.1
}
