package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		err  error // nil: success
	}{
		{"sorted keys, no whitespace", `{ "seats": 10, "plan": "team", "billing": { "z": 1, "a": [ 1, 2 ] } }`, `{"billing":{"a":[1,2],"z":1},"plan":"team","seats":10}`, nil},
		{"numbers kept as written", `[10, 10.0, 1e3, -0, 12345678901234567890123]`, `[10,10.0,1e3,-0,12345678901234567890123]`, nil},
		{"string escapes minimal", `"a\u0041\/\"\\\n\u0001\u007f<>&\u2028é"`, "\"aA/\\\"\\\\\\n\\u0001\x7f<>&\u2028é\"", nil},
		{"keys sorted by bytes", `{"b":1,"B":2,"é":3,"a":4}`, `{"B":2,"a":4,"b":1,"é":3}`, nil},
		{"literals", ` [true,false,null] `, `[true,false,null]`, nil},
		{"empty containers", `{"a":{},"b":[]}`, `{"a":{},"b":[]}`, nil},
		{"invalid UTF-8 replaced", "\"\xff\"", "\"\uFFFD\"", nil},
		{"empty", ``, "", ErrInvalidJSON},
		{"whitespace only", " \n", "", ErrInvalidJSON},
		{"trailing value", `{} {}`, "", errTrailing},
		{"trailing garbage", `1 x`, "", ErrInvalidJSON},
		{"duplicate key", `{"seats":1,"seats":10}`, "", errDuplicateKey},
		{"nested duplicate key", `{"a":[{"x":1,"x":1}]}`, "", errDuplicateKey},
		{"too deep", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), "", errTooDeep},
		{"trailing comma", `[1,]`, "", ErrInvalidJSON},
		{"missing colon", `{"a" 1}`, "", ErrInvalidJSON},
		{"unquoted key", `{a:1}`, "", ErrInvalidJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical([]byte(tc.in))
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !errors.Is(err, ErrInvalidJSON) {
					t.Fatalf("Canonical(%q) error = %v, want %v", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Fatalf("Canonical(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Canonical([]byte(deep)); err != nil {
		t.Fatalf("nesting of exactly MaxDepth refused: %v", err)
	}
}

func TestIdempotencyKey(t *testing.T) {
	a, err := IdempotencyKey("saas-demo", "checkout", json.RawMessage(`{"seats":10,"plan":"team"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := IdempotencyKey("saas-demo", "checkout", json.RawMessage("{\n  \"plan\": \"team\",\n  \"seats\": 10\n}"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(`{"plan":"team","seats":10}`))
	want := "commit:saas-demo:checkout:" + hex.EncodeToString(sum[:])
	if a != want || b != want {
		t.Fatalf("keys %q, %q; want both %q", a, b, want)
	}
	if _, err := IdempotencyKey("", "checkout", json.RawMessage(`{}`)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty site: %v", err)
	}
	if _, err := IdempotencyKey("s", "f", json.RawMessage(`{`)); !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("bad payload: %v", err)
	}
}

func TestGenesisHash(t *testing.T) {
	sum := sha256.Sum256([]byte(genesisSeed))
	if got := hex.EncodeToString(sum[:]); got != GenesisHash {
		t.Fatalf("GenesisHash = %s, sha256(%q) = %s", GenesisHash, genesisSeed, got)
	}
}

// FuzzCanonical checks that Canonical accepts exactly the valid JSON without
// duplicate keys or excess depth, that its output is valid JSON meaning the
// same as the input, and that it is idempotent.
func FuzzCanonical(f *testing.F) {
	for _, seed := range []string{
		`{"plan":"team","seats":10,"billing":{"cycle":"annual","vat":"DE123"},"amount":"190.00"}`,
		`[1, 2.50, -3e-7, 1E+2, 0]`,
		`"\u00e9\ud83d\ude00\n\t\u0000"`,
		`{"a":{"a":{"a":[{}]}}}`,
		`{"x":1,"x":2}`,
		`{} []`,
		`[[[[[[[[[[]]]]]]]]]]`,
		"\"\xff\xfe\"",
		`{"z":null,"y":true,"x":false}`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonical(in)
		if err != nil {
			if !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("error %v does not wrap ErrInvalidJSON", err)
			}
			if json.Valid(in) && !errors.Is(err, errDuplicateKey) && !errors.Is(err, errTooDeep) {
				t.Fatalf("valid JSON %q refused: %v", in, err)
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("invalid JSON %q accepted as %q", in, out)
		}
		if !json.Valid(out) {
			t.Fatalf("Canonical(%q) = %q, not valid JSON", in, out)
		}
		again, err := Canonical(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, out, again, err)
		}
		if bytes.ContainsAny(out, " \n\r\t") && !bytes.Contains(in, []byte(`"`)) {
			t.Fatalf("whitespace left in %q", out)
		}
		var a, b any
		decode := func(p []byte, v *any) {
			d := json.NewDecoder(bytes.NewReader(p))
			d.UseNumber()
			if err := d.Decode(v); err != nil {
				t.Fatalf("decode %q: %v", p, err)
			}
		}
		decode(in, &a)
		decode(out, &b)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("meaning changed: %q -> %q", in, out)
		}
	})
}
