package planner

// Frontier is an indexed binary max-heap of pending branches, ordered by
// their key (utility per marginal cost for the beam, the UCB for UCT, ...)
// and then by plan digest, so the order is total and deterministic. Push,
// Pop, Update and Remove are O(log n); Reheap re-keys everything in O(n).
// It stays cheap at 100k branches.
type Frontier struct {
	h []*Node
}

// Len returns the number of branches in the frontier.
func (f *Frontier) Len() int { return len(f.h) }

func (f *Frontier) less(i, j int) bool {
	a, b := f.h[i], f.h[j]
	if a.key != b.key {
		return a.key > b.key
	}
	return a.Digest < b.Digest
}

func (f *Frontier) swap(i, j int) {
	f.h[i], f.h[j] = f.h[j], f.h[i]
	f.h[i].index = i
	f.h[j].index = j
}

func (f *Frontier) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !f.less(i, p) {
			return
		}
		f.swap(i, p)
		i = p
	}
}

func (f *Frontier) down(i int) bool {
	start := i
	n := len(f.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && f.less(r, l) {
			m = r
		}
		if !f.less(m, i) {
			break
		}
		f.swap(i, m)
		i = m
	}
	return i > start
}

// Push adds n with its current key.
func (f *Frontier) Push(n *Node) {
	n.index = len(f.h)
	f.h = append(f.h, n)
	f.up(n.index)
}

// Pop removes and returns the best branch, or nil when empty.
func (f *Frontier) Pop() *Node {
	if len(f.h) == 0 {
		return nil
	}
	n := f.h[0]
	f.Remove(n)
	return n
}

// Peek returns the best branch without removing it.
func (f *Frontier) Peek() *Node {
	if len(f.h) == 0 {
		return nil
	}
	return f.h[0]
}

// Update restores the heap after n's key changed.
func (f *Frontier) Update(n *Node) {
	if n.index < 0 || n.index >= len(f.h) || f.h[n.index] != n {
		return
	}
	if !f.down(n.index) {
		f.up(n.index)
	}
}

// Remove takes n out of the frontier (a no-op when it is not in it).
func (f *Frontier) Remove(n *Node) {
	i := n.index
	if i < 0 || i >= len(f.h) || f.h[i] != n {
		return
	}
	last := len(f.h) - 1
	if i != last {
		f.swap(i, last)
	}
	f.h[last] = nil
	f.h = f.h[:last]
	n.index = -1
	if i != last {
		if !f.down(i) {
			f.up(i)
		}
	}
}

// Reheap recomputes every key with key and restores the heap in O(n).
func (f *Frontier) Reheap(key func(*Node) float64) {
	for i, n := range f.h {
		n.key = key(n)
		n.index = i
	}
	for i := len(f.h)/2 - 1; i >= 0; i-- {
		f.down(i)
	}
}

// Nodes returns the frontier's branches in no particular order.
func (f *Frontier) Nodes() []*Node { return f.h }
