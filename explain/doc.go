// Package explain tells why a branch ended as it did, from a run's
// events alone: where it was forked from and why, which predicates its
// actions flipped and the credit they earned, the prune rule that cut it
// with the rule's numbers, or its place in the winner ranking. It reads
// the event log's typed payloads and nothing else, so a reader of records
// (the dashboard, `orchestrator explain`) needs no control plane.
package explain
