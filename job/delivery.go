package job

// Delivery is one delivery of a job to an executor, as the bus hands it
// over: the job's wire form and what the bus message says about it. An
// executor handles it as a bus handler does a bus job (package worker
// adapts one to the other): it returns the result's wire form, or an
// error for a fault of its own, which makes the bus deliver the job again.
type Delivery struct {
	RunID    string
	BranchID string
	// Attempt is the delivery count: 1 on the first delivery.
	Attempt int
	// Data is the job's wire form (Job.Encode).
	Data []byte
	// Header holds the message's headers, the W3C trace context of the
	// branch span among them. It shares the bus message's headers: what
	// it holds when the executor returns is carried on the result.
	Header map[string][]string
	// Route is the route of the worker running the job: a result whose
	// executor kept the branch's live session names it (Result.WarmRoute)
	// so that the branch's children are routed there.
	Route string
}
