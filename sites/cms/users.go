package cms

import (
	"net/mail"
	"regexp"
	"sort"
	"strings"
)

// Roles, from the least to the most privileged.
const (
	RoleSubscriber    = "subscriber"
	RoleContributor   = "contributor"
	RoleAuthor        = "author"
	RoleEditor        = "editor"
	RoleAdministrator = "administrator"
)

// role is one option of the role select.
type role struct{ Value, Label string }

// roles in the order the select lists them; Subscriber is the default.
var roles = []role{
	{RoleSubscriber, "Subscriber"},
	{RoleContributor, "Contributor"},
	{RoleAuthor, "Author"},
	{RoleEditor, "Editor"},
	{RoleAdministrator, "Administrator"},
}

// roleLabel returns the label of a role value ("" when unknown).
func roleLabel(v string) string {
	for _, r := range roles {
		if r.Value == v {
			return r.Label
		}
	}
	return ""
}

// User is an account of the site.
type User struct {
	ID          int    `json:"id"`
	Username    string `json:"username"`
	Email       string `json:"email"`
	FirstName   string `json:"first_name"`
	LastName    string `json:"last_name"`
	DisplayName string `json:"display_name"`
	Role        string `json:"role"`
	Blocked     bool   `json:"blocked"`
	// Seq is the order of creation among users created through the site
	// (0 for seed users).
	Seq int `json:"seq,omitempty"`
	// ClientReference is the client_reference the creating request
	// carried, if any.
	ClientReference string `json:"client_reference,omitempty"`
}

// DefaultUsers are the seed users of a site: the administrator and two
// others.
func DefaultUsers() []User {
	return []User{
		{Username: DefaultUsername, Email: "admin@inkwell.example", FirstName: "Ada", LastName: "Admin", DisplayName: "Ada Admin", Role: RoleAdministrator},
		{Username: "jdoe", Email: "jdoe@inkwell.example", FirstName: "Jane", LastName: "Doe", DisplayName: "Jane Doe", Role: RoleAuthor},
		{Username: "msmith", Email: "msmith@inkwell.example", FirstName: "Mark", LastName: "Smith", DisplayName: "Mark Smith", Role: RoleSubscriber},
	}
}

// usernameRe is what a username may hold.
var usernameRe = regexp.MustCompile(`^[A-Za-z0-9_.@-]{1,60}$`)

// Refusal messages, as the error notice shows them after "Error:".
const (
	msgNoUsername     = "Please enter a username."
	msgBadUsername    = "This username is invalid because it uses illegal characters. Please enter a valid username."
	msgUsernameTaken  = "This username is already registered. Please choose another one."
	msgNoEmail        = "Please enter an email address."
	msgBadEmail       = "The email address is not correct."
	msgEmailTaken     = "This email is already registered. Please choose another one."
	msgBadRole        = "Sorry, you are not allowed to give users that role."
	msgReferenceReuse = "This request reference was already used for another user."
	msgExpired        = "The link you followed has expired. Please go back, reload the page and try again."
)

// checkNew returns the refusal message for creating u, "" when it may be
// created. The caller holds s.mu or owns s.
func (s *Site) checkNew(u *User) string {
	switch {
	case u.Username == "":
		return msgNoUsername
	case !usernameRe.MatchString(u.Username):
		return msgBadUsername
	case s.userByName(u.Username) != nil:
		return msgUsernameTaken
	}
	if msg := s.checkEmail(u.Email, 0); msg != "" {
		return msg
	}
	if roleLabel(u.Role) == "" {
		return msgBadRole
	}
	return ""
}

// checkEmail returns the refusal message for giving user id (0: a new
// user) the address email.
func (s *Site) checkEmail(email string, id int) string {
	switch {
	case email == "":
		return msgNoEmail
	case !validEmail(email):
		return msgBadEmail
	}
	if o := s.userByEmail(email); o != nil && o.ID != id {
		return msgEmailTaken
	}
	return ""
}

// validEmail reports whether e is a bare address (local@domain).
func validEmail(e string) bool {
	a, err := mail.ParseAddress(e)
	return err == nil && a.Address == e && a.Name == "" && strings.Contains(e[strings.LastIndexByte(e, '@'):], ".")
}

// add stores u with the next ID. The caller holds s.mu or owns s.
func (s *Site) add(u User) *User {
	s.nextUserID++
	u.ID = s.nextUserID
	if u.DisplayName == "" {
		u.DisplayName = strings.TrimSpace(u.FirstName + " " + u.LastName)
		if u.DisplayName == "" {
			u.DisplayName = u.Username
		}
	}
	p := &u
	s.users = append(s.users, p)
	return p
}

// userByName finds a user by username, case-insensitively. The caller
// holds s.mu or owns s.
func (s *Site) userByName(name string) *User {
	for _, u := range s.users {
		if strings.EqualFold(u.Username, name) {
			return u
		}
	}
	return nil
}

// userByEmail finds a user by e-mail address, case-insensitively.
func (s *Site) userByEmail(email string) *User {
	for _, u := range s.users {
		if strings.EqualFold(u.Email, email) {
			return u
		}
	}
	return nil
}

// userByID finds a user by id.
func (s *Site) userByID(id int) *User {
	for _, u := range s.users {
		if u.ID == id {
			return u
		}
	}
	return nil
}

// removeUser deletes the user with id.
func (s *Site) removeUser(id int) {
	for i, u := range s.users {
		if u.ID == id {
			s.users = append(s.users[:i], s.users[i+1:]...)
			return
		}
	}
}

// Users returns a copy of every user, by ID.
func (s *Site) Users() []User {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.copyUsers(func(*User) bool { return true })
}

// User returns a copy of the user with username, and whether it exists.
func (s *Site) User(username string) (User, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.userByName(username); u != nil {
		return *u, true
	}
	return User{}, false
}

// copyUsers returns copies of the users keep accepts, by ID. The caller
// holds s.mu.
func (s *Site) copyUsers(keep func(*User) bool) []User {
	out := []User{}
	for _, u := range s.users {
		if keep(u) {
			out = append(out, *u)
		}
	}
	return out
}

// searchUsers returns the users matching the search term q (username,
// e-mail or name, case-insensitive) and role (""; any), sorted by username.
func (s *Site) searchUsers(q, role string) []User {
	q = strings.ToLower(strings.TrimSpace(q))
	s.mu.Lock()
	out := s.copyUsers(func(u *User) bool {
		if role != "" && u.Role != role {
			return false
		}
		if q == "" {
			return true
		}
		for _, f := range []string{u.Username, u.Email, u.FirstName + " " + u.LastName, u.DisplayName} {
			if strings.Contains(strings.ToLower(f), q) {
				return true
			}
		}
		return false
	})
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Username) < strings.ToLower(out[j].Username) })
	return out
}

// Post is an entry of the posts list.
type Post struct {
	ID     int    `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"` // publish or draft
	Author string `json:"author"`
}

func defaultPosts(author string) []*Post {
	return []*Post{
		{ID: 1, Title: "Hello world!", Status: "publish", Author: author},
		{ID: 2, Title: "About this site", Status: "publish", Author: author},
	}
}

// Settings are the general settings.
type Settings struct {
	Title   string
	Tagline string
}

func defaultSettings() Settings {
	return Settings{Title: "Inkwell Demo", Tagline: "Just another Inkwell site"}
}

// LoggedOut returns how many sessions a logout request ended.
func (s *Site) LoggedOut() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loggedOut
}

// Sessions returns how many sessions are live.
func (s *Site) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}
