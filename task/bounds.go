package task

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// MaxNodes bounds the YAML nodes a task file may expand to, an alias
// counting its whole target at every use. A real task has a few hundred;
// the bound stops alias bombs (a few KB that expand to billions of nodes)
// before the decoder walks them.
const MaxNodes = 100_000

// sizer measures a YAML tree as the decoder will walk it: aliases
// expanded. Each node's size is computed once, so measuring is linear in
// the file even when the expansion is not.
type sizer struct {
	file   string
	memo   map[*yaml.Node]int
	onPath map[*yaml.Node]bool
	err    *Error
}

// checkBounds refuses a document that expands to more than MaxNodes nodes
// or holds an alias to a node that contains it (which the decoder would
// follow forever).
func checkBounds(file string, doc *yaml.Node) error {
	s := &sizer{file: file, memo: map[*yaml.Node]int{}, onPath: map[*yaml.Node]bool{}}
	s.size(doc, "")
	if s.err != nil {
		return s.err
	}
	return nil
}

func (s *sizer) fail(n *yaml.Node, path, format string, args ...any) {
	if s.err == nil {
		s.err = &Error{File: s.file, Line: n.Line, Field: path, Msg: fmt.Sprintf(format, args...)}
	}
}

// size returns the expanded node count of n, at most MaxNodes+1.
func (s *sizer) size(n *yaml.Node, path string) int {
	if s.err != nil || n == nil {
		return 0
	}
	if v, ok := s.memo[n]; ok {
		return v
	}
	total := 1
	if n.Kind == yaml.AliasNode {
		if s.onPath[n.Alias] {
			s.fail(n, path, "alias *%s refers to a node that contains it", n.Value)
			return 0
		}
		total += s.size(n.Alias, path)
	}
	s.onPath[n] = true
	for i, c := range n.Content {
		total += s.size(c, childPath(n, path, i))
		if total > MaxNodes {
			s.fail(n, path, "the task file expands to more than %d YAML nodes (aliases count at every use)", MaxNodes)
			total = MaxNodes + 1
			break
		}
	}
	delete(s.onPath, n)
	s.memo[n] = total
	return total
}

// childPath is the dotted field path of n's i-th child, as the decoder
// names fields.
func childPath(n *yaml.Node, path string, i int) string {
	switch n.Kind {
	case yaml.MappingNode:
		if i%2 == 1 {
			return joinPath(path, n.Content[i-1].Value)
		}
	case yaml.SequenceNode:
		return fmt.Sprintf("%s[%d]", path, i)
	}
	return path
}
