package scoring

// Detector recognizes a dead end: a page from which the goal cannot be
// reached (a captcha, a 404, a contact-sales form). Each set pattern is a
// regular expression; the detector fires when any set pattern matches.
type Detector struct {
	Name  string `json:"name"`
	Text  string `json:"text,omitempty"`
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
}

// DefaultDetectors are the dead-end detectors used when a task names none.
func DefaultDetectors() []Detector {
	return []Detector{
		{Name: "captcha", Text: `(?i)\b(captcha|verify (that )?you are (a )?human|i'?m not a robot)\b`},
		{Name: "not_found", Text: `(?i)(page not found|couldn'?t find that page|\b404\b.{0,20}not found)`, Title: `(?i)(not found|\b404\b)`},
		{Name: "contact_sales", Text: `(?i)(sales team will (contact|reach)|talk to (our )?sales|contact sales to)`, URL: `(?i)/contact-sales`},
		{Name: "access_denied", Text: `(?i)(access denied|you (do not|don't) have permission)`},
	}
}

// Fires reports whether d recognizes the page.
func (d Detector) Fires(url, title, text string) bool {
	return (d.URL != "" && MatchString(d.URL, url)) ||
		(d.Title != "" && MatchString(d.Title, title)) ||
		(d.Text != "" && MatchString(d.Text, text))
}

// Validate checks the detector's patterns.
func (d Detector) Validate() error {
	if d.Name == "" {
		return &FieldError{Path: "name", Msg: "a dead-end detector needs a name"}
	}
	if d.Text == "" && d.URL == "" && d.Title == "" {
		return &FieldError{Msg: "a dead-end detector needs one of text, url, title"}
	}
	for _, f := range [...]struct{ field, expr string }{{"text", d.Text}, {"url", d.URL}, {"title", d.Title}} {
		field, expr := f.field, f.expr
		if expr == "" {
			continue
		}
		if _, err := compile(expr); err != nil {
			return &FieldError{Path: field, Msg: "bad regular expression: " + err.Error()}
		}
	}
	return nil
}
