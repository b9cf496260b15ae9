package gym

import (
	"hash/fnv"
)

// The gym is written by the same team as the planner, so a planner tuned
// until every family passes says little about pages nobody here wrote. A
// third of the families are therefore frozen as evaluation families: the
// planner is never changed to pass them. They are measured and reported
// (tools/gymbench, TestGymGreedy) but never asserted and never debugged
// against; a failure there is fixed, if at all, by a construction that a
// tuning family or a real site also needs, and the evaluation numbers
// are read only to see whether such constructions generalize.
//
// Membership is a fixed rule on the family's name alone, so adding a
// family never moves another: a family is an evaluation family when the
// 32-bit FNV-1a hash of evaluationSalt followed by its name is 0 modulo
// 3. The salt's version was fixed once, blind to any result, when the
// split was made (58 families): the first of v1, v2, ... whose split
// held round(58/3) = 19 evaluation families, which was v5. It is never
// changed again. TestSplitIsPinned pins the resulting list, so any
// change to the rule or to a family's name shows in review.
const evaluationSalt = "multiverse-gym-evaluation/v5/"

// Evaluation reports whether a family is frozen for evaluation (see the
// rule above). It answers for any name, served or not.
func Evaluation(family string) bool {
	h := fnv.New32a()
	h.Write([]byte(evaluationSalt + family))
	return h.Sum32()%3 == 0
}

// Split parts the served families into tuning and evaluation families,
// each sorted.
func Split() (tuning, evaluation []string) {
	for _, f := range Families() {
		if Evaluation(f) {
			evaluation = append(evaluation, f)
		} else {
			tuning = append(tuning, f)
		}
	}
	return tuning, evaluation
}

// Original reports whether a family is one of the 39 the planner was
// developed against before the split; the families written after it
// from widget patterns of real sites (patterns.go and its neighbours)
// are not. TestGymGreedy asserts only original tuning families.
func Original(family string) bool {
	_, ok := families[family]
	return ok
}
