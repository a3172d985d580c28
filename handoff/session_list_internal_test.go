package handoff

import "testing"

// blocks keeps what it is given in order across blocks, and hands out
// pointers that write to what it keeps.
func TestBlocksKeepOrderAcrossBlocks(t *testing.T) {
	var l blocks[int]
	const n = 3*blockLen + 5
	for i := range n {
		l.add(i)
	}
	if l.n != n {
		t.Fatalf("n = %d, want %d", l.n, n)
	}
	next := 0
	l.each(func(v *int) {
		if *v != next {
			t.Fatalf("element %d is %d", next, *v)
		}
		*v = -next
		next++
	})
	if next != n {
		t.Fatalf("each gave %d elements, want %d", next, n)
	}
	next = 0
	l.each(func(v *int) {
		if *v != -next {
			t.Fatalf("element %d is %d after it was written as %d", next, *v, -next)
		}
		next++
	})
}
