package handoff

// noticeSet keeps notices in order, each once: a workflow that decides
// again says what it found once.
type noticeSet struct {
	list []string
	seen map[string]bool
}

func (n *noticeSet) add(s string) {
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	if !n.seen[s] {
		n.seen[s] = true
		n.list = append(n.list, s)
	}
}

// addAll adds each of ss, in order.
func (n *noticeSet) addAll(ss []string) {
	for _, s := range ss {
		n.add(s)
	}
}
