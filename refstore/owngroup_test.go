package refstore

import "testing"

// Every git runs in its own process group but those that may ask for
// credentials on the terminal, which run there only when there is one.
func TestOwnGroup(t *testing.T) {
	tty := hasTerminal()
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"update-ref", "--stdin"}, true},
		{[]string{"symbolic-ref", "HEAD"}, true},
		{[]string{"-c", "i18n.commitEncoding=UTF-8", "commit-tree", "--no-gpg-sign"}, true},
		{[]string{"fetch", "--quiet", "origin"}, !tty},
		{[]string{"-c", "fetch.unpackLimit=1", "fetch", "--quiet"}, !tty},
		{[]string{"-c", "remote.origin.fetch=+refs/ao/*:refs/ao/remotes/origin/*", "push", "--porcelain"}, !tty},
		{[]string{"ls-remote", "origin"}, !tty},
		{[]string{"-C", "/r", "push"}, !tty},
	} {
		if got := ownGroup(c.args); got != c.want {
			t.Errorf("ownGroup(%q) = %v, want %v (terminal: %v)", c.args, got, c.want, tty)
		}
	}
}
