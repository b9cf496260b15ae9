package simweb_test

import (
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/simweb"
)

func ExampleSite_Execute() {
	site := simweb.Generate(7, simweb.DefaultConfig())
	spec, err := site.Spec()
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := site.Solution()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, cost := site.Execute(plan, spec)
	fmt.Println(site.Origin, site.Vendor)
	fmt.Println(site.GoalText())
	fmt.Println(res.Status, "at boundary:", res.AtBoundary, "actions:", cost.Actions)
	fmt.Println("seats on the review page:", res.Intent["seats"])
	// Output:
	// http://sim-7.test Helix Flow
	// Buy the Team plan for 25 seats with monthly billing for a company in Germany and keep the invoice.
	// ok at boundary: true actions: 8
	// seats on the review page: 25
}
