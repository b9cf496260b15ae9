package dashboard_test

import (
	"errors"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/dashboard"
)

func ExampleCheckAddr() {
	for _, c := range []struct{ addr, token string }{
		{"127.0.0.1:8620", ""},
		{"0.0.0.0:8620", ""},
		{"0.0.0.0:8620", "s3cret"},
	} {
		err := dashboard.CheckAddr(c.addr, c.token)
		fmt.Printf("%s token=%t: ok=%t non-loopback=%t\n", c.addr, c.token != "", err == nil, errors.Is(err, dashboard.ErrNonLoopback))
	}
	// Output:
	// 127.0.0.1:8620 token=false: ok=true non-loopback=false
	// 0.0.0.0:8620 token=false: ok=false non-loopback=true
	// 0.0.0.0:8620 token=true: ok=true non-loopback=false
}
