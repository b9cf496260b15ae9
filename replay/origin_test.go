package replay

import "testing"

// TestContextOrigin: a bundle's requests come from the context its last
// step ran in, which began at the chain's last branch that did not
// continue its parent's, when that branch recorded its replayed prefix.
func TestContextOrigin(t *testing.T) {
	for _, tc := range []struct {
		name      string
		warm      []bool // per chain member, root first
		prefixNet []bool
		want      int
	}{
		{"all warm", []bool{false, true, true}, []bool{false, false, false}, 0},
		{"a cold leaf", []bool{false, true, false}, []bool{false, false, true}, 2},
		{"a cold middle, warm below", []bool{false, false, true, true}, []bool{false, true, false, false}, 1},
		{"a cold leaf of an older run", []bool{false, false}, []bool{false, false}, 0},
		{"the root alone", []bool{false}, []bool{false}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rr := &runRecords{steps: map[string]*recordedStep{}}
			var chain []string
			for i := range tc.warm {
				id := string(rune('a' + i))
				chain = append(chain, id)
				rr.steps[id] = &recordedStep{warm: tc.warm[i], prefixNet: tc.prefixNet[i]}
			}
			if got := rr.contextOrigin(chain); got != tc.want {
				t.Errorf("origin %d, want %d", got, tc.want)
			}
		})
	}
}
