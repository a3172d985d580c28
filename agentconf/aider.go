package agentconf

import (
	"regexp"
	"strings"
	"sync"
)

// Aider has no hooks. Its `read:` setting loads files read-only into every
// chat, so it gets an instruction file telling it to run `git handoff
// start` first, listed in .aider.conf.yml. Without a YAML library we edit
// that file only where it is safe: a marked block of our own when the file
// has no `read:` key; otherwise the user is told what to add.
const (
	aiderConf         = ".aider.conf.yml"
	aiderInstructions = ".aider.git-handoff.md"
	yamlBegin         = "# git-handoff:begin (written by git handoff init --agent aider)"
	yamlEnd           = "# git-handoff:end"
)

func aider() agent {
	return agent{
		name: "aider",
		parts: []part{
			ownedFile{
				path:   aiderInstructions,
				marker: "<!-- git-handoff:aider -->",
				content: "<!-- git-handoff:aider -->\n" +
					"<!-- written by git handoff init --agent aider; read by aider through .aider.conf.yml -->\n\n" +
					startInstructions,
			},
			aiderRead{},
		},
	}
}

// aiderRead is our entry in the read: list of .aider.conf.yml.
type aiderRead struct{}

func (aiderRead) rel() string { return aiderConf }

// readKey is compiled at first use, not by every git-handoff start.
var readKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^read\s*:`) })

func aiderBlock() string {
	return yamlBegin + "\nread:\n  - " + aiderInstructions + "\n" + yamlEnd + "\n"
}

// split finds our block: text before, the block, text after.
func (aiderRead) split(cur string) (before, block, after string, ok bool) {
	b := strings.Index(cur, yamlBegin)
	if b < 0 {
		return cur, "", "", false
	}
	n := strings.Index(cur[b:], yamlEnd)
	if n < 0 {
		return cur, "", "", false
	}
	e := b + n + len(yamlEnd)
	if e < len(cur) && cur[e] == '\n' {
		e++
	}
	return cur[:b], cur[b:e], cur[e:], true
}

// listsOurs says whether the user's own YAML (outside our block) names the
// instruction file, e.g. after merging it into their read: list by hand.
func listsOurs(yaml string) bool {
	for _, line := range strings.Split(yaml, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if strings.Contains(line, aiderInstructions) {
			return true
		}
	}
	return false
}

func (a aiderRead) install(curB []byte, exists bool) ([]byte, []string, error) {
	cur := string(curB)
	before, block, after, ok := a.split(cur)
	if ok {
		if block == aiderBlock() {
			return curB, nil, nil
		}
		return []byte(before + aiderBlock() + after), nil, nil
	}
	if listsOurs(cur) {
		return curB, nil, nil
	}
	if readKey().MatchString(cur) {
		return curB, []string{aiderConf + " already has a read: list, which git-handoff does not edit: add " + aiderInstructions + " to it"}, nil
	}
	switch {
	case strings.TrimSpace(cur) == "":
		cur = ""
	case !strings.HasSuffix(cur, "\n"):
		cur += "\n"
	}
	return []byte(cur + aiderBlock()), nil, nil
}

func (a aiderRead) remove(curB []byte) ([]byte, bool, error) {
	before, _, after, ok := a.split(string(curB))
	if !ok {
		return curB, false, nil
	}
	out := before + after
	if strings.TrimSpace(out) == "" {
		return nil, true, nil
	}
	return []byte(out), false, nil
}

func (a aiderRead) check(curB []byte, exists bool) (State, string) {
	cur := string(curB)
	_, block, _, ok := a.split(cur)
	switch {
	case ok && block == aiderBlock():
		return Installed, ""
	case ok:
		return Stale, "the git-handoff block differs from what init writes"
	case listsOurs(cur):
		return Installed, "listed in your own read: entry"
	case readKey().MatchString(cur):
		return Missing, "your read: list does not name " + aiderInstructions
	}
	return Missing, ""
}
