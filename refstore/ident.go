package refstore

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// committerIdent is what `git var GIT_COMMITTER_IDENT` says, "Name <email>
// <time> <zone>", for the reflog entries the in-process writer appends. It
// is made in process from GIT_COMMITTER_NAME/EMAIL, committer.* and user.*
// (the same precedence as git's ident.c); where git would fall back on the
// host's account or parse a GIT_COMMITTER_DATE, or would have to tidy the
// name, git var is asked, so the entries read the same either way.
func (s *Store) committerIdent(ctx context.Context) (string, error) {
	if id, ok := s.identInProcess(time.Now()); ok {
		return id, nil
	}
	out, err := Git(ctx, s.startDir, false, nil, "var", "GIT_COMMITTER_IDENT")
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(out), "\n"), nil
}

func (s *Store) identInProcess(now time.Time) (string, bool) {
	if _, ok := os.LookupEnv("GIT_COMMITTER_DATE"); ok {
		return "", false
	}
	var cfg map[string]string
	lookup := func(env string, keys ...string) (string, bool) {
		if v, ok := os.LookupEnv(env); ok {
			return v, true
		}
		if cfg == nil {
			entries, err := readConfig(s.layout.configDirs())
			if err != nil {
				return "", false
			}
			cfg = configLookup(entries, []string{"committer.name", "committer.email", "user.name", "user.email"})
		}
		for _, k := range keys {
			if v, ok := cfg[k]; ok {
				return v, true
			}
		}
		return "", false
	}
	name, _ := lookup("GIT_COMMITTER_NAME", "committer.name", "user.name")
	email, set := lookup("GIT_COMMITTER_EMAIL", "committer.email", "user.email")
	if !set {
		email = os.Getenv("EMAIL")
	}
	if !cleanIdentPart(name) || !cleanIdentPart(email) {
		return "", false
	}
	return fmt.Sprintf("%s <%s> %d %s", name, email, now.Unix(), now.Format("-0700")), true
}

// cleanIdentPart reports whether git would take s as it is: not empty, no
// "<", ">" or newline, and none of the characters git strips from either end.
func cleanIdentPart(s string) bool {
	if s == "" || strings.ContainsAny(s, "<>\n") {
		return false
	}
	crud := func(c byte) bool { return c <= 32 || strings.IndexByte(".,:;<>\"\\'", c) >= 0 }
	return !crud(s[0]) && !crud(s[len(s)-1])
}
