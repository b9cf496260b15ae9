package artifacts_test

import (
	"context"
	"fmt"
	"os"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
)

func ExampleFS() {
	dir, err := os.MkdirTemp("", "artifacts-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	store, err := artifacts.OpenFS(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := store.Put(ctx, []byte("abc"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d)
	data, err := store.Get(ctx, d)
	fmt.Printf("%s %v\n", data, err)
	// Output:
	// sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
	// abc <nil>
}

func ExampleParseDigest() {
	d, err := artifacts.ParseDigest("sha256:BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD")
	fmt.Println(d.Hex(), err)
	_, err = artifacts.ParseDigest("sha256:abc")
	fmt.Println(err)
	// Output:
	// ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad <nil>
	// artifacts: bad digest: "sha256:abc": want 64 hex digits, optionally prefixed by "sha256:"
}
