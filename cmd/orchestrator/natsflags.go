package main

import (
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// checkNATS validates the NATS flags before anything starts: a listen
// address the embedded server cannot use, or replicas it cannot have, is
// bad input naming the flag.
func (f *runFlags) checkNATS() error {
	if f.natsListen != "" {
		if f.nats != "" {
			return badInput("--nats-listen %s configures the embedded NATS server, which --nats %s replaces: give one of them", f.natsListen, f.nats)
		}
		if _, _, err := orchestrator.ParseListen(f.natsListen); err != nil {
			return err
		}
	}
	switch {
	case f.replicas < 0 || f.replicas > bus.MaxReplicas:
		return badInput("--replicas %d is not in 1..%d (leave it out to keep the streams' replicas)", f.replicas, bus.MaxReplicas)
	case f.replicas > 1 && f.nats == "":
		return badInput("--replicas %d needs a JetStream cluster of at least %d servers, and the embedded NATS server is a single one: give --nats with the cluster's URLs, or --replicas 1", f.replicas, f.replicas)
	}
	return nil
}
