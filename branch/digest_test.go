package branch

import "testing"

// TestDigestAndSeedGolden pins the plan digest and the seed derivation:
// cached plans, bundles, reruns and the search's determinism all key on
// them, so a change of either format must be deliberate (a new version
// prefix), never a side effect. The navigate digest is sha256 of
// "multiverse/plan/v1\x00" + task digest + "\n" +
// `[{"k":"navigate","u":"{origin}/pricing"}]`, as computed outside Go.
func TestDigestAndSeedGolden(t *testing.T) {
	nav := Action{Kind: KindNavigate, URL: "http://127.0.0.1:8555/pricing"}
	click := Action{Kind: KindClick, Target: &Target{Role: "button", Name: "Continue"}}
	typed := Action{Kind: KindType, Target: &Target{ID: "seats"}, Input: "seats"}
	for _, tc := range []struct {
		name   string
		plan   Plan
		task   string
		origin string
		digest string
		seed   uint64
	}{
		{"empty", Plan{}, "t", "", "789e3216f55c1dce851246fa51f0031111b5c93111b39f27619363d5effe541b", 14643837196492876753},
		{"navigate", Plan{nav}, "t", "http://127.0.0.1:8555", "8ef693ebe4f0cef6f0e06dfe19c252ec1790707871ccf59d1f3393fb61e4c7e6", 12810654832159310577},
		{"navigate, another port", Plan{{Kind: KindNavigate, URL: "http://127.0.0.1:9999/pricing"}}, "t", "http://127.0.0.1:9999", "8ef693ebe4f0cef6f0e06dfe19c252ec1790707871ccf59d1f3393fb61e4c7e6", 12810654832159310577},
		{"three steps", Plan{nav, click, typed}, "t", "http://127.0.0.1:8555", "8b9a95c0b8f80e3f0653ef69802c11bd0dbe8109976a2af5cdf46ac7d2311e21", 12781276771642524412},
		{"another task", Plan{nav, click, typed}, "u", "http://127.0.0.1:8555", "a31a03c553f823a407bdeabe0e1cc5e41025bc644ebd64f3e5966353641adf75", 6637282304696522763},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.plan.Digest(tc.task, tc.origin)
			if d != tc.digest {
				t.Errorf("Digest = %s, want %s", d, tc.digest)
			}
			if s := SeedFor(42, d); s != tc.seed {
				t.Errorf("SeedFor(42, digest) = %d, want %d", s, tc.seed)
			}
		})
	}
}
