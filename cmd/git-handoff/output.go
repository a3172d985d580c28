package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
)

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print JSON on stdout and nothing else"}

// handoffJSON is a baton as --json shows it: the record's own fields and the
// ref it lives at.
type handoffJSON struct {
	baton.Baton
	Ref string `json:"ref"`
}

func toJSON(s *baton.Stored) *handoffJSON {
	if s == nil {
		return nil
	}
	return &handoffJSON{Baton: s.Baton, Ref: s.Ref}
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// notify prints messages for the user on stderr.
func notify(w io.Writer, notices []string) {
	for _, n := range notices {
		fmt.Fprintf(w, "notice: %s\n", n)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
