package cms

import (
	"net/http"
)

// apiUsers is GET /api/users[?client_reference=KEY][&username=NAME]: the
// users by ID, or those matching every filter given, as {"users": [...]}.
// It needs no session, so an audit or a commit probe can ask it.
func (s *Site) apiUsers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ref, name := q.Get("client_reference"), q.Get("username")
	_, byRef := q["client_reference"]
	s.mu.Lock()
	users := s.copyUsers(func(u *User) bool {
		return (!byRef || (ref != "" && u.ClientReference == ref)) && (name == "" || u.Username == name)
	})
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, struct {
		Users []User `json:"users"`
	}{users})
}

// apiHeartbeat is POST /api/heartbeat, the admin pages' background
// polling: it answers whether the session is live and counts the beat.
func (s *Site) apiHeartbeat(w http.ResponseWriter, r *http.Request) {
	readForm(w, r)
	if _, ok := s.currentUser(r); !ok {
		writeJSON(w, http.StatusOK, struct {
			Auth bool `json:"auth"`
		}{false})
		return
	}
	s.mu.Lock()
	s.beats++
	n := s.beats
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, struct {
		Auth bool `json:"auth"`
		Beat int  `json:"beat"`
	}{true, n})
}

// Heartbeats returns how many heartbeats with a live session the site
// answered.
func (s *Site) Heartbeats() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.beats
}

// apiNotFound is an unknown /api/ path.
func (s *Site) apiNotFound(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusNotFound, struct {
		Error string `json:"error"`
	}{"no such endpoint: " + r.Method + " " + r.URL.Path})
}

// notFoundPage is the body of a 404 outside the admin.
const notFoundPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Page not found</title><link rel="icon" href="data:,"></head>
<body><h1>Page not found</h1><p><a href="/admin/">Go to the dashboard</a></p></body></html>
`

// notFound is an unknown path outside the admin.
func (s *Site) notFound(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(notFoundPage))
}
