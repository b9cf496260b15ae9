package sites

import (
	"crypto/rand"
	"net/http"
)

// A/B variants and the cookies the vendor reads.
const (
	variantA      = "A"
	variantB      = "B"
	abCookie      = "mv_ab"      // pins the A/B variant
	consentCookie = "mv_consent" // set by the late banner's "Accept cookies"
)

// chooseVariant returns the request's variant: its mv_ab cookie if that is
// "A" or "B"; else the knob. For "random" it draws A or B with crypto/rand
// and pins the draw with a session cookie mv_ab (Path=/).
func chooseVariant(w http.ResponseWriter, r *http.Request, k Knobs) string {
	if c, err := r.Cookie(abCookie); err == nil && (c.Value == variantA || c.Value == variantB) {
		return c.Value
	}
	switch k.ABVariant {
	case variantB:
		return variantB
	case "random":
		v := randomVariant()
		http.SetCookie(w, &http.Cookie{Name: abCookie, Value: v, Path: "/", SameSite: http.SameSiteLaxMode})
		return v
	}
	return variantA
}

// randomVariant draws A or B uniformly.
func randomVariant() string {
	var b [1]byte
	if _, err := rand.Read(b[:]); err != nil {
		return variantA
	}
	if b[0]&1 == 1 {
		return variantB
	}
	return variantA
}

// consented reports whether the visitor accepted cookies.
func consented(r *http.Request) bool {
	c, err := r.Cookie(consentCookie)
	return err == nil && c.Value == "1"
}
