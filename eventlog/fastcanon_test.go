package eventlog

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
)

// slowCanonical is CanonicalPayload's decode and encode path alone.
func slowCanonical(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, strconv.ErrSyntax
	}
	return encodeNoHTML(v)
}

func TestIsCanonicalTable(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{}`, true},
		{`[]`, true},
		{`{"a":1,"b":[true,false,null,"x"]}`, true},
		{`{"b":1,"a":2}`, false},              // unsorted
		{`{"a":1,"a":2}`, false},              // duplicate
		{`{"a": 1}`, false},                   // whitespace
		{`{"a":"<b>&"}`, true},                // HTML left alone
		{`{"a":"\u003cb\u003e"}`, false},      // HTML escaped
		{`{"a":"\/"}`, false},                 // needless escape
		{`{"a":"\u0041"}`, false},             // needless escape
		{`{"a":"\u000a"}`, false},             // \n has a short form
		{`{"a":"\u0001\n\t\"\\"}`, true},      // control characters as Go writes them
		{`{"a":"\u001F"}`, false},             // upper-case hex
		{"{\"a\":\"\u2028\"}", false},         // raw line separator
		{`{"a":"\u2028"}`, true},              // escaped line separator
		{"{\"a\":\"\xff\"}", false},           // invalid UTF-8
		{`{"a":-0.5e+10,"b":10,"c":0}`, true}, // numbers as written
		{`{"a":01}`, false},
		{`{"a":1.}`, false},
		{`{"a":tru}`, false},
		{`{"a\u0062":1}`, false}, // escaped key
		{`"x"`, false},           // not an object or array
		{`{"a":1}x`, false},
		{`[1,]`, false},
	}
	for _, tt := range tests {
		if got := isCanonical([]byte(tt.in)); got != tt.want {
			t.Errorf("isCanonical(%s) = %v, want %v", tt.in, got, tt.want)
		}
		if tt.want {
			slow, err := slowCanonical([]byte(tt.in))
			if err != nil || string(slow) != tt.in {
				t.Errorf("%s: the decoding path gives %s, %v", tt.in, slow, err)
			}
		}
	}
}

// TestIsCanonicalAgreesWithDecoding: encoded values are recognised as
// canonical, and whatever the scanner accepts (mutations included) the
// decoding path returns unchanged.
func TestIsCanonicalAgreesWithDecoding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "Z", "0", " ", "<", "&", "\"", "\\", "\n", "\t", "\x01", "\x1f", "\x7f", "é", "\u2028", "✓", "😀", "/"}
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := r.IntN(7); {
		case depth > 3 || k == 0:
			return json.Number(strconv.FormatFloat((r.Float64()-0.5)*1e6, 'g', -1, 64))
		case k == 1:
			s := ""
			for range r.IntN(6) {
				s += alphabet[r.IntN(len(alphabet))]
			}
			return s
		case k == 2:
			return r.IntN(2) == 0
		case k == 3:
			return nil
		case k == 4:
			a := make([]any, r.IntN(4))
			for i := range a {
				a[i] = gen(depth + 1)
			}
			return a
		default:
			m := map[string]any{}
			for range r.IntN(5) {
				m[alphabet[r.IntN(len(alphabet))]+alphabet[r.IntN(len(alphabet))]] = gen(depth + 1)
			}
			return m
		}
	}
	accepted, recognised := 0, 0
	for i := 0; i < 3000; i++ {
		b, err := encodeNoHTML(map[string]any{"v": gen(0), "w": gen(1)})
		if err != nil {
			t.Fatal(err)
		}
		if isCanonical(b) {
			recognised++
		} else if !bytes.Contains(b, []byte(`\`)) {
			// Only keys with escapes go down the decoding path on purpose.
			t.Fatalf("encoded value not recognised: %s", b)
		}
		for m := 0; m < 4; m++ {
			mut := append([]byte{}, b...)
			if m > 0 {
				j := r.IntN(len(mut))
				switch r.IntN(3) {
				case 0:
					const bytesOfJSON = "{}[]\":,\\ u0a-.eE"
					mut[j] = bytesOfJSON[r.IntN(len(bytesOfJSON))]
				case 1:
					mut = append(mut[:j], mut[j+1:]...)
				default:
					mut = append(mut[:j], append([]byte{' '}, mut[j:]...)...)
				}
			}
			if !isCanonical(mut) {
				continue
			}
			if m > 0 {
				accepted++
			}
			slow, err := slowCanonical(mut)
			if err != nil || !bytes.Equal(slow, mut) {
				t.Fatalf("accepted %q but the decoding path gives %q (%v)", mut, slow, err)
			}
		}
	}
	if recognised < 1500 {
		t.Fatalf("only %d of 3000 encoded values recognised as canonical", recognised)
	}
	if accepted < 50 {
		t.Fatalf("only %d mutated inputs accepted: the agreement check hardly ran", accepted)
	}
}

func BenchmarkCanonicalPayload(b *testing.B) {
	p, _ := encodeNoHTML(map[string]any{"branch_id": "01JABCDEF", "rule": "lag", "numbers": map[string]any{"j": 0.42, "best": 0.9, "margin": 0.2},
		"plan": []any{"open the start page", "click link Pricing", "click link Choose Team"}})
	b.Run("canonical", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			CanonicalPayload(p)
		}
	})
	b.Run("decode-encode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			slowCanonical(p)
		}
	})
}
