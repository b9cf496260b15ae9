package sites

import (
	"io"
	"net/http"
)

// adminKnobsPath is the knobs endpoint: GET returns the knobs as JSON, PUT
// replaces all of them (missing keys become zero values) after validation.
const adminKnobsPath = "/__admin/knobs"

const maxAdminBody = 64 << 10

// serveAdmin handles /__admin/…; it is exempt from every chaos knob.
func (v *Vendor) serveAdmin(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != adminKnobsPath {
		writeJSONError(w, http.StatusNotFound, codeNotFound, "No admin endpoint at "+r.URL.Path, nil)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		writeJSON(w, http.StatusOK, v.Knobs())
	case http.MethodPut:
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAdminBody))
		if err != nil {
			writeJSONError(w, http.StatusBadRequest, codeInvalidRequest, "sites: read knobs: "+err.Error(), nil)
			return
		}
		var k Knobs
		if err := k.UnmarshalJSON(body); err != nil {
			writeJSONError(w, http.StatusBadRequest, codeInvalidRequest, err.Error(), nil)
			return
		}
		if err := v.SetKnobs(k); err != nil {
			writeJSONError(w, http.StatusBadRequest, codeInvalidRequest, err.Error(), nil)
			return
		}
		writeJSON(w, http.StatusOK, v.Knobs())
	default:
		w.Header().Set("Allow", "GET, HEAD, PUT")
		writeJSONError(w, http.StatusMethodNotAllowed, "method_not_allowed", "Use GET or PUT", nil)
	}
}
