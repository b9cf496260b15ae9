package act_test

import (
	"context"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/act"
	"github.com/multiverse-orchestrator/multiverse/branch"
)

// A runtime implements Page and Element; Do interprets the action.
func ExampleDo() {
	p := &fakePage{strategy: "testid"}
	inputs := func(name string) (string, error) { return "10", nil }
	a := branch.Action{Kind: branch.KindType, Target: &branch.Target{TestID: "seats"}, Input: "seats"}
	res, err := act.Do(context.Background(), p, a, inputs)
	fmt.Println(res.Strategy, err)
	for _, c := range p.calls {
		fmt.Println(c)
	}

	_, err = act.Do(context.Background(), p, branch.Action{Kind: branch.KindClick}, inputs)
	fmt.Println(err)
	// Output:
	// testid <nil>
	// resolve [data-testid=seats]
	// input seats at [data-testid=seats] = 10
	// fill 10
	// unsupported_action_type: click needs a target
}
