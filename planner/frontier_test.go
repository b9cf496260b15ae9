package planner

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestFrontierOrder(t *testing.T) {
	var f Frontier
	r := rand.New(rand.NewPCG(1, 2))
	var all []*Node
	for i := 0; i < 500; i++ {
		n := &Node{Digest: fmt.Sprintf("%04d", i), key: float64(r.IntN(50))}
		all = append(all, n)
		f.Push(n)
	}
	for i := 0; i < 100; i++ { // re-key some, remove some
		n := all[r.IntN(len(all))]
		if n.index < 0 {
			continue
		}
		if i%3 == 0 {
			f.Remove(n)
			continue
		}
		n.key = float64(r.IntN(50))
		f.Update(n)
	}
	var got []*Node
	for f.Len() > 0 {
		got = append(got, f.Pop())
	}
	if !sort.SliceIsSorted(got, func(i, j int) bool {
		if got[i].key != got[j].key {
			return got[i].key > got[j].key
		}
		return got[i].Digest < got[j].Digest
	}) {
		t.Fatal("pop order is not key desc, digest asc")
	}
}

func benchFrontier(n int) (*Frontier, []*Node) {
	var f Frontier
	nodes := make([]*Node, n)
	r := rand.New(rand.NewPCG(7, 7))
	for i := range nodes {
		nodes[i] = &Node{Digest: fmt.Sprintf("%08d", i), key: r.Float64()}
		f.Push(nodes[i])
	}
	return &f, nodes
}

// BenchmarkFrontierPushPop: one push and one pop at 100k branches.
func BenchmarkFrontierPushPop(b *testing.B) {
	f, _ := benchFrontier(100_000)
	r := rand.New(rand.NewPCG(3, 3))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := f.Pop()
		n.key = r.Float64()
		f.Push(n)
	}
}

// BenchmarkFrontierUpdate: re-key one branch at 100k branches.
func BenchmarkFrontierUpdate(b *testing.B) {
	f, nodes := benchFrontier(100_000)
	r := rand.New(rand.NewPCG(4, 4))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := nodes[r.IntN(len(nodes))]
		n.key = r.Float64()
		f.Update(n)
	}
}

// BenchmarkFrontierRescore: re-key all 100k branches (reported per branch).
func BenchmarkFrontierRescore(b *testing.B) {
	f, _ := benchFrontier(100_000)
	r := rand.New(rand.NewPCG(5, 5))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Reheap(func(*Node) float64 { return r.Float64() })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/branch")
}
