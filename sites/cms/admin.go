package cms

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Nonce actions: a nonce is valid only for the form it was issued for.
const (
	actCreateUser = "create-user"
	actUpdateUser = "update-user"
	actBlockUser  = "block-user"
	actDeleteUser = "delete-user"
	actProfile    = "profile"
	actPost       = "post"
	actSettings   = "settings"
)

// readForm parses a bounded form body into r.PostForm.
func readForm(w http.ResponseWriter, r *http.Request) url.Values {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	_ = r.ParseForm()
	return r.PostForm
}

// expired answers a form whose nonce the site did not issue for it: 403
// with the expired-link notice, changing nothing.
func (s *Site) expired(w http.ResponseWriter, me User) {
	s.writeAdmin(w, http.StatusForbidden, "message", me, page{Title: "Something went wrong", Notices: []notice{errorNotice(msgExpired)}})
}

// adminNotFound is an unknown page under /admin/.
func (s *Site) adminNotFound(w http.ResponseWriter, r *http.Request, me User) {
	s.writeAdmin(w, http.StatusNotFound, "message", me, page{Title: "Page not found", Notices: []notice{errorNotice("Sorry, that page does not exist.")}})
}

// dashboardBody is the dashboard's model.
type dashboardBody struct {
	Users, Posts, Drafts int
	DraftNonce           string
}

// dashboard is GET /admin/.
func (s *Site) dashboard(w http.ResponseWriter, r *http.Request, me User) {
	b := dashboardBody{DraftNonce: s.issueNonce(actPost)}
	s.mu.Lock()
	b.Users = len(s.users)
	for _, p := range s.posts {
		if p.Status == "draft" {
			b.Drafts++
		} else {
			b.Posts++
		}
	}
	s.mu.Unlock()
	s.writeAdmin(w, http.StatusOK, "dashboard", me, page{Title: "Dashboard", Screen: "dashboard", Body: b})
}

// profilePage is GET /admin/profile: the account's details; the profile
// form itself is on every admin page.
func (s *Site) profilePage(w http.ResponseWriter, r *http.Request, me User) {
	p := page{Title: "Profile", Screen: "users", Item: "profile"}
	if r.URL.Query().Get("updated") == "1" {
		p.Notices = []notice{successNotice("Profile updated.")}
	}
	s.writeAdmin(w, http.StatusOK, "profile", me, p)
}

// profilePost is POST /admin/profile: it changes the logged-in user's
// e-mail address and display name and goes to the profile page (303); a
// refused address shows the profile page with an error notice (200).
func (s *Site) profilePost(w http.ResponseWriter, r *http.Request, me User) {
	f := readForm(w, r)
	if !s.validNonce(f.Get("_nonce"), actProfile) {
		s.expired(w, me)
		return
	}
	email := strings.TrimSpace(f.Get("email"))
	display := strings.TrimSpace(f.Get("display_name"))
	s.mu.Lock()
	msg := s.checkEmail(email, me.ID)
	if u := s.userByID(me.ID); msg == "" && u != nil {
		u.Email = email
		if display != "" {
			u.DisplayName = display
		}
		me = *u
	}
	s.mu.Unlock()
	if msg != "" {
		s.writeAdmin(w, http.StatusOK, "profile", me, page{Title: "Profile", Screen: "users", Item: "profile", Notices: []notice{errorNotice(msg)}})
		return
	}
	http.Redirect(w, r, "/admin/profile?updated=1", http.StatusSeeOther)
}

// usersBody is the users list's model.
type usersBody struct {
	Search, Role string
	Users        []User
	Total        int
	RoleCounts   []roleCount
	BlockNonce   string
	// Created is the user named by ?created=, shown in the success notice.
	Created *User
}

type roleCount struct {
	Value, Label string
	Count        int
}

// usersPage is GET /admin/users[?s=TERM][&role=ROLE][&created=NAME].
func (s *Site) usersPage(w http.ResponseWriter, r *http.Request, me User) {
	q := r.URL.Query()
	b := usersBody{Search: q.Get("s"), Role: q.Get("role"), BlockNonce: s.issueNonce(actBlockUser)}
	if roleLabel(b.Role) == "" {
		b.Role = ""
	}
	b.Users = s.searchUsers(b.Search, b.Role)
	s.mu.Lock()
	b.Total = len(s.users)
	for _, rl := range roles {
		n := 0
		for _, u := range s.users {
			if u.Role == rl.Value {
				n++
			}
		}
		if n > 0 {
			b.RoleCounts = append(b.RoleCounts, roleCount{rl.Value, rl.Label, n})
		}
	}
	if name := q.Get("created"); name != "" {
		if u := s.userByName(name); u != nil {
			c := *u
			b.Created = &c
		}
	}
	s.mu.Unlock()
	p := page{Title: "Users", Screen: "users", Item: "users-all", TitleAction: &link{"/admin/users/new", "Add New User"}, Body: b}
	switch {
	case q.Get("blocked") != "":
		p.Notices = []notice{successNotice("User blocked.")}
	case q.Get("deleted") == "1":
		p.Notices = []notice{successNotice("User deleted.")}
	}
	s.writeAdmin(w, http.StatusOK, "users", me, p)
}

// userForm is the create-user and edit-user forms' model.
type userForm struct {
	Nonce                                string
	ID                                   int
	Username, Email, FirstName, LastName string
	Role                                 string
}

// newUserPage is GET /admin/users/new: the create-user form with a fresh
// nonce.
func (s *Site) newUserPage(w http.ResponseWriter, r *http.Request, me User) {
	s.renderNewUser(w, me, userForm{Role: RoleSubscriber}, nil)
}

func (s *Site) renderNewUser(w http.ResponseWriter, me User, f userForm, notices []notice) {
	f.Nonce = s.issueNonce(actCreateUser)
	s.writeAdmin(w, http.StatusOK, "user-new", me, page{Title: "Add New User", Screen: "users", Item: "users-new", Notices: notices, Body: f})
}

// createUser is POST /admin/users. In order: a nonce the site did not
// issue for this form answers 403 and changes nothing; a client_reference
// that created a user before replays that outcome (303 to the same page,
// nothing created) when the form names the same user, and is refused
// otherwise; a refused user (missing or taken username or e-mail, unknown
// role) re-renders the form with an error notice, HTTP 200; otherwise the
// user is created and the answer is 303 to /admin/users?created=NAME.
func (s *Site) createUser(w http.ResponseWriter, r *http.Request, me User) {
	f := readForm(w, r)
	form := userForm{
		Username: strings.TrimSpace(f.Get("user_login")), Email: strings.TrimSpace(f.Get("email")),
		FirstName: strings.TrimSpace(f.Get("first_name")), LastName: strings.TrimSpace(f.Get("last_name")),
		Role: f.Get("role"),
	}
	if form.Role == "" {
		form.Role = RoleSubscriber
	}
	if !s.validNonce(f.Get("_nonce"), actCreateUser) {
		s.expired(w, me)
		return
	}
	ref := f.Get("client_reference")
	u := User{Username: form.Username, Email: form.Email, FirstName: form.FirstName, LastName: form.LastName, Role: form.Role, ClientReference: ref}
	s.mu.Lock()
	var msg string
	if prev := s.refs[ref]; ref != "" && prev != nil {
		if sameUser(prev, &u) {
			s.mu.Unlock()
			http.Redirect(w, r, "/admin/users?created="+url.QueryEscape(prev.Username), http.StatusSeeOther)
			return
		}
		msg = msgReferenceReuse
	}
	if msg == "" {
		msg = s.checkNew(&u)
	}
	if msg == "" {
		s.created++
		u.Seq = s.created
		p := s.add(u)
		if ref != "" {
			s.refs[ref] = p
		}
	}
	s.mu.Unlock()
	if msg != "" {
		s.renderNewUser(w, me, form, []notice{errorNotice(msg)})
		return
	}
	http.Redirect(w, r, "/admin/users?created="+url.QueryEscape(u.Username), http.StatusSeeOther)
}

// sameUser reports whether b asks for the user a is.
func sameUser(a, b *User) bool {
	return strings.EqualFold(a.Username, b.Username) && strings.EqualFold(a.Email, b.Email) &&
		a.FirstName == b.FirstName && a.LastName == b.LastName && a.Role == b.Role
}

// pathUser returns a copy of the user the {id} path value names.
func (s *Site) pathUser(r *http.Request) (User, bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		return User{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.userByID(id); u != nil {
		return *u, true
	}
	return User{}, false
}

// editUserPage is GET /admin/users/{id}/edit.
func (s *Site) editUserPage(w http.ResponseWriter, r *http.Request, me User) {
	u, ok := s.pathUser(r)
	if !ok {
		s.adminNotFound(w, r, me)
		return
	}
	var notices []notice
	if r.URL.Query().Get("updated") == "1" {
		notices = []notice{successNotice("User updated.")}
	}
	s.renderEditUser(w, me, userForm{ID: u.ID, Username: u.Username, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName, Role: u.Role}, notices)
}

func (s *Site) renderEditUser(w http.ResponseWriter, me User, f userForm, notices []notice) {
	f.Nonce = s.issueNonce(actUpdateUser)
	s.writeAdmin(w, http.StatusOK, "user-edit", me, page{Title: "Edit User " + f.Username, Screen: "users", Item: "users-all", Notices: notices, Body: f})
}

// updateUser is POST /admin/users/{id}: it changes the user's e-mail,
// name and role (303 back to the edit page), or shows the form again with
// an error notice (200).
func (s *Site) updateUser(w http.ResponseWriter, r *http.Request, me User) {
	u, ok := s.pathUser(r)
	if !ok {
		s.adminNotFound(w, r, me)
		return
	}
	f := readForm(w, r)
	if !s.validNonce(f.Get("_nonce"), actUpdateUser) {
		s.expired(w, me)
		return
	}
	form := userForm{ID: u.ID, Username: u.Username, Email: strings.TrimSpace(f.Get("email")),
		FirstName: strings.TrimSpace(f.Get("first_name")), LastName: strings.TrimSpace(f.Get("last_name")), Role: f.Get("role")}
	s.mu.Lock()
	msg := s.checkEmail(form.Email, u.ID)
	if msg == "" && roleLabel(form.Role) == "" {
		msg = msgBadRole
	}
	if p := s.userByID(u.ID); msg == "" && p != nil {
		p.Email, p.FirstName, p.LastName, p.Role = form.Email, form.FirstName, form.LastName, form.Role
	}
	s.mu.Unlock()
	if msg != "" {
		s.renderEditUser(w, me, form, []notice{errorNotice(msg)})
		return
	}
	http.Redirect(w, r, "/admin/users/"+strconv.Itoa(u.ID)+"/edit?updated=1", http.StatusSeeOther)
}

// blockUser is POST /admin/users/{id}/block: it blocks the user (303 to
// the list). The form's hidden _nonce is required.
func (s *Site) blockUser(w http.ResponseWriter, r *http.Request, me User) {
	u, ok := s.pathUser(r)
	if !ok {
		s.adminNotFound(w, r, me)
		return
	}
	f := readForm(w, r)
	if !s.validNonce(f.Get("_nonce"), actBlockUser) {
		s.expired(w, me)
		return
	}
	if u.ID == me.ID {
		s.writeAdmin(w, http.StatusOK, "message", me, page{Title: "Users", Screen: "users", Item: "users-all", Notices: []notice{errorNotice("You cannot block yourself.")}})
		return
	}
	s.mu.Lock()
	if p := s.userByID(u.ID); p != nil {
		p.Blocked = true
	}
	s.mu.Unlock()
	http.Redirect(w, r, "/admin/users?blocked="+url.QueryEscape(u.Username), http.StatusSeeOther)
}

// deleteBody is the delete confirmation's model.
type deleteBody struct {
	User  User
	Nonce string
}

// deleteUserPage is GET /admin/users/{id}/delete: a confirmation whose
// form posts the deletion.
func (s *Site) deleteUserPage(w http.ResponseWriter, r *http.Request, me User) {
	u, ok := s.pathUser(r)
	if !ok {
		s.adminNotFound(w, r, me)
		return
	}
	s.writeAdmin(w, http.StatusOK, "user-delete", me, page{Title: "Delete User", Screen: "users", Item: "users-all", Body: deleteBody{User: u, Nonce: s.issueNonce(actDeleteUser)}})
}

// deleteUser is POST /admin/users/{id}/delete.
func (s *Site) deleteUser(w http.ResponseWriter, r *http.Request, me User) {
	u, ok := s.pathUser(r)
	if !ok {
		s.adminNotFound(w, r, me)
		return
	}
	f := readForm(w, r)
	if !s.validNonce(f.Get("_nonce"), actDeleteUser) {
		s.expired(w, me)
		return
	}
	if u.ID == me.ID {
		s.writeAdmin(w, http.StatusOK, "message", me, page{Title: "Delete User", Screen: "users", Item: "users-all", Notices: []notice{errorNotice("You cannot delete yourself.")}})
		return
	}
	s.mu.Lock()
	s.removeUser(u.ID)
	for k, p := range s.refs {
		if p.ID == u.ID {
			delete(s.refs, k)
		}
	}
	s.mu.Unlock()
	http.Redirect(w, r, "/admin/users?deleted=1", http.StatusSeeOther)
}

// postsBody is the posts list's model.
type postsBody struct{ Posts []Post }

// postsPage is GET /admin/posts.
func (s *Site) postsPage(w http.ResponseWriter, r *http.Request, me User) {
	var b postsBody
	s.mu.Lock()
	for _, p := range s.posts {
		b.Posts = append(b.Posts, *p)
	}
	s.mu.Unlock()
	p := page{Title: "Posts", Screen: "posts", Item: "posts-all", TitleAction: &link{"/admin/posts/new", "Add New Post"}, Body: b}
	switch r.URL.Query().Get("saved") {
	case "draft":
		p.Notices = []notice{successNotice("Draft saved.")}
	case "publish":
		p.Notices = []notice{successNotice("Post published.")}
	}
	s.writeAdmin(w, http.StatusOK, "posts", me, p)
}

// postForm is the new-post form's model.
type postForm struct{ Nonce, Title, Content string }

// newPostPage is GET /admin/posts/new.
func (s *Site) newPostPage(w http.ResponseWriter, r *http.Request, me User) {
	s.writeAdmin(w, http.StatusOK, "post-new", me, page{Title: "Add New Post", Screen: "posts", Item: "posts-new", Body: postForm{Nonce: s.issueNonce(actPost)}})
}

// createPost is POST /admin/posts (the new-post form and the dashboard's
// quick draft): status draft or publish.
func (s *Site) createPost(w http.ResponseWriter, r *http.Request, me User) {
	f := readForm(w, r)
	if !s.validNonce(f.Get("_nonce"), actPost) {
		s.expired(w, me)
		return
	}
	title := strings.TrimSpace(f.Get("post_title"))
	status := f.Get("status")
	if status != "publish" {
		status = "draft"
	}
	if title == "" {
		s.writeAdmin(w, http.StatusOK, "post-new", me, page{Title: "Add New Post", Screen: "posts", Item: "posts-new",
			Notices: []notice{errorNotice("A post needs a title.")}, Body: postForm{Nonce: s.issueNonce(actPost), Content: f.Get("content")}})
		return
	}
	s.mu.Lock()
	s.posts = append(s.posts, &Post{ID: len(s.posts) + 1, Title: title, Status: status, Author: me.Username})
	s.mu.Unlock()
	http.Redirect(w, r, "/admin/posts?saved="+status, http.StatusSeeOther)
}

// settingsBody is the settings form's model.
type settingsBody struct {
	Nonce string
	Settings
}

// settingsPage is GET /admin/settings.
func (s *Site) settingsPage(w http.ResponseWriter, r *http.Request, me User) {
	s.mu.Lock()
	b := settingsBody{Settings: s.settings}
	s.mu.Unlock()
	b.Nonce = s.issueNonce(actSettings)
	p := page{Title: "General Settings", Screen: "settings", Item: "settings-general", Body: b}
	if r.URL.Query().Get("updated") == "true" {
		p.Notices = []notice{successNotice("Settings saved.")}
	}
	s.writeAdmin(w, http.StatusOK, "settings", me, p)
}

// settingsPost is POST /admin/settings.
func (s *Site) settingsPost(w http.ResponseWriter, r *http.Request, me User) {
	f := readForm(w, r)
	if !s.validNonce(f.Get("_nonce"), actSettings) {
		s.expired(w, me)
		return
	}
	s.mu.Lock()
	if t := strings.TrimSpace(f.Get("blogname")); t != "" {
		s.settings.Title = t
	}
	s.settings.Tagline = strings.TrimSpace(f.Get("blogdescription"))
	s.mu.Unlock()
	http.Redirect(w, r, "/admin/settings?updated=true", http.StatusSeeOther)
}
