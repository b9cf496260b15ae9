package task

import (
	"reflect"
	"testing"
)

// TestStateSecrets: of a storage state, only the credentials are secrets
// (scrub.Credential decides).
func TestStateSecrets(t *testing.T) {
	st := StorageState{Cookies: []StateCookie{{Name: "uid", Value: "42"}, {Name: "sid", Value: "9f8e7d6c5b4a"}},
		Origins: []StateOrigin{{Origin: "https://app.test", LocalStorage: []StateKeyValue{{Name: "theme", Value: "dark"}, {Name: "access_token", Value: "tok-12345678"}}}}}
	if got, want := st.Secrets(), []string{"9f8e7d6c5b4a", "tok-12345678"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Secrets() = %q, want %q", got, want)
	}
}
