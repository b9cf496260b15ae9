package commit

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/browser"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "volatile", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVolatileFields: two loads of a page whose create-user form carries
// a nonce and a sequence number issued per load: exactly those fields
// change; another form's nonce does not count; a load without the form
// cannot tell.
func TestVolatileFields(t *testing.T) {
	one, two := readFixture(t, "load1.html"), readFixture(t, "load2.html")
	for _, tc := range []struct {
		name  string
		a, b  []byte
		ref   formRef
		want  []string
		found bool
	}{
		{"by id", one, two, formRef{ID: "createuser", Index: 1}, []string{"_wpnonce_create-user", "form_seq"}, true},
		{"by index", one, two, formRef{Index: 0}, []string{"_wpnonce"}, true},
		{"same load twice", one, one, formRef{ID: "createuser"}, nil, true},
		{"form missing", one, readFixture(t, "noform.html"), formRef{ID: "createuser"}, nil, false},
		{"not HTML at all", one, []byte("{\"json\": true}"), formRef{ID: "createuser"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, found := volatileFields(tc.a, tc.b, tc.ref)
			if found != tc.found || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("volatileFields = %v, %v; want %v, %v", got, found, tc.want, tc.found)
			}
		})
	}
}

// TestFormDefaults: the served defaults of each kind of control, a field
// owned through the form attribute included, the submit button left out.
func TestFormDefaults(t *testing.T) {
	got, ok := formDefaults(readFixture(t, "load1.html"), formRef{ID: "createuser"})
	if !ok {
		t.Fatal("form not found")
	}
	want := map[string][]string{
		"_wpnonce_create-user": {"1f2e3d"}, "form_seq": {"41"}, "_wp_http_referer": {"/wp-admin/user-new.php"},
		"email": {""}, "role": {"editor"}, "send_user_notification": {"1"}, "bio": {"hello"}, "outside": {"kept"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("formDefaults =\n%v\nwant\n%v", got, want)
	}
}

// TestCanonicalBody: the key field, volatile fields and hidden nonce
// fields are left out, saying why; a password, a personal field and a
// secret value are kept only as a stable hash; the rest is kept as sent,
// repeated names in order.
func TestCanonicalBody(t *testing.T) {
	fields := []browser.FormField{
		{Name: "_wpnonce", Value: "abc", Type: "hidden"},
		{Name: "authenticity_token", Value: "t0k", Type: "hidden"},
		{Name: "client_reference", Value: "", Type: "hidden"},
		{Name: "form_seq", Value: "41", Type: "hidden"},
		{Name: "nonce_hint", Value: "visible hint", Type: "text"}, // not hidden: kept
		{Name: "user_login", Value: "newbie", Type: "text"},
		{Name: "email", Value: "x@example.com", Type: "email"},
		{Name: "pass1", Value: "hunter2hunter2", Type: "password"},
		{Name: "api_note", Value: "uses s3cr3t-value here", Type: "text"},
		{Name: "role", Value: "editor", Type: "select"},
		{Name: "tags", Value: "a", Type: "checkbox"},
		{Name: "tags", Value: "b", Type: "checkbox"},
	}
	body, dropped := canonicalBody(fields, bodyRules{KeyField: "client_reference", Volatile: []string{"form_seq"}, Secrets: []string{"s3cr3t-value"}})
	wantDropped := []Dropped{{"_wpnonce", "nonce_name"}, {"authenticity_token", "nonce_name"}, {"client_reference", "key_field"}, {"form_seq", "volatile"}}
	if !reflect.DeepEqual(dropped, wantDropped) {
		t.Errorf("dropped = %v, want %v", dropped, wantDropped)
	}
	for name, want := range map[string][]string{"nonce_hint": {"visible hint"}, "user_login": {"newbie"}, "role": {"editor"}, "tags": {"a", "b"}} {
		if !reflect.DeepEqual(body[name], want) {
			t.Errorf("body[%s] = %v, want %v", name, body[name], want)
		}
	}
	for _, name := range []string{"email", "pass1", "api_note"} {
		v := body[name]
		if len(v) != 1 || !strings.HasPrefix(v[0], hashedPrefix) {
			t.Errorf("body[%s] = %v, want a hash", name, v)
		}
	}
	for _, clear := range []string{"x@example.com", "hunter2", "s3cr3t"} {
		for name, vs := range body {
			if strings.Contains(strings.Join(vs, " "), clear) {
				t.Errorf("body[%s] holds %q in clear", name, clear)
			}
		}
	}
	again, _ := canonicalBody(fields, bodyRules{KeyField: "client_reference", Volatile: []string{"form_seq"}, Secrets: []string{"s3cr3t-value"}})
	if !reflect.DeepEqual(body, again) {
		t.Error("the same form made two bodies")
	}
	other := append([]browser.FormField(nil), fields...)
	other[6].Value = "y@example.com"
	if b, _ := canonicalBody(other, bodyRules{KeyField: "client_reference"}); reflect.DeepEqual(b["email"], body["email"]) {
		t.Error("two e-mails hash the same")
	}
}
