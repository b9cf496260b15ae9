package branch

// Cookie is a cookie of the site a branch runs on. The run pins the
// cookies its first page set (an A/B assignment, a session) and every
// branch and the committer start from them; a login state carries its
// own.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"http_only"`
	Secure   bool    `json:"secure"`
	// SameSite is "Strict", "Lax", "None" or "" (the browser's default).
	SameSite string `json:"same_site,omitempty"`
}
