package artifacts_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
)

const (
	emptySum = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	abcSum   = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
)

func TestSum(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want artifacts.Digest
	}{
		{"", emptySum},
		{"abc", abcSum},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := artifacts.Sum([]byte(tc.in)); got != tc.want {
				t.Fatalf("Sum(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestDigestString(t *testing.T) {
	d := artifacts.Digest(abcSum)
	if got, want := d.String(), "sha256:"+abcSum; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if d.Hex() != abcSum {
		t.Fatalf("Hex() = %q", d.Hex())
	}
}

func TestParseDigest(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want artifacts.Digest // "" means ErrBadDigest expected
	}{
		{"bare", abcSum, abcSum},
		{"prefixed", "sha256:" + abcSum, abcSum},
		{"uppercase normalised", strings.ToUpper(abcSum), abcSum},
		{"prefixed uppercase hex", "sha256:" + strings.ToUpper(abcSum), abcSum},
		{"empty", "", ""},
		{"prefix only", "sha256:", ""},
		{"short", abcSum[:63], ""},
		{"long", abcSum + "0", ""},
		{"non hex", "g" + abcSum[1:], ""},
		{"uppercase prefix", "SHA256:" + abcSum, ""},
		{"other algorithm", "sha512:" + abcSum, ""},
		{"double prefix", "sha256:sha256:" + abcSum, ""},
		{"surrounding space", " " + abcSum, ""},
		{"trailing newline", abcSum + "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := artifacts.ParseDigest(tc.in)
			if tc.want == "" {
				if !errors.Is(err, artifacts.ErrBadDigest) {
					t.Fatalf("ParseDigest(%q) = %q, %v; want ErrBadDigest", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseDigest(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func FuzzParseDigest(f *testing.F) {
	for _, s := range []string{"", abcSum, "sha256:" + emptySum, strings.ToUpper(abcSum), "sha256:", "sha256:zz", abcSum[:10]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := artifacts.ParseDigest(s)
		if err != nil {
			if !errors.Is(err, artifacts.ErrBadDigest) {
				t.Fatalf("ParseDigest(%q): error %v does not match ErrBadDigest", s, err)
			}
			if artifacts.Digest(s).Validate() == nil {
				t.Fatalf("ParseDigest(%q) rejected a digest that Validate accepts", s)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ParseDigest(%q) = %q which does not validate: %v", s, d, err)
		}
		if !strings.EqualFold(strings.TrimPrefix(s, "sha256:"), string(d)) {
			t.Fatalf("ParseDigest(%q) = %q changed more than case", s, d)
		}
		again, err := artifacts.ParseDigest(d.String())
		if err != nil || again != d {
			t.Fatalf("ParseDigest(String()) = %q, %v; want %q", again, err, d)
		}
	})
}
