package planner

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

func TestMatchesGoal(t *testing.T) {
	words := goalWords("Add a new user with the username newbie and the role Editor")
	cases := []struct {
		h    branch.Held
		want bool
	}{
		{branch.Held{Method: "POST", Path: "/admin/users"}, true},
		{branch.Held{Method: "POST", Path: "/wp-admin/user-new.php"}, true},
		{branch.Held{Method: "POST", Path: "/admin/profile", Fields: []string{"_nonce", "display_name", "email"}}, false},
		{branch.Held{Method: "POST", Path: "/x", Fields: []string{"new_role"}}, true},
		{branch.Held{Method: "DELETE", Path: "/api/session"}, false},
	}
	for _, c := range cases {
		if got := matchesGoal(c.h, words); got != c.want {
			t.Errorf("matchesGoal(%s %v) = %v, want %v", c.h.Describe(), c.h.Fields, got, c.want)
		}
	}
}
