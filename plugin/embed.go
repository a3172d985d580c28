package plugin

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// tree is the checked-in copy of every plugin, one directory an agent
// (all: the manifests live in dot-directories). It is what Install
// writes, and what the repository's own marketplaces point at;
// TestCheckedIn keeps it equal to Files. Regenerate it with
// `go test ./plugin -run TestCheckedIn -update`.
//
//go:embed all:claude-code all:codex all:gemini all:copilot all:cursor all:opencode
var tree embed.FS

// Embedded are the files of agent's plugin as this binary carries them,
// sorted by path.
func Embedded(agent string) ([]File, error) {
	s, err := find(agent)
	if err != nil {
		return nil, err
	}
	return treeFiles(s.agent)
}

// treeFiles are the files the binary carries for agent, a name of specs.
func treeFiles(agent string) ([]File, error) {
	var out []File
	err := fs.WalkDir(tree, agent, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := tree.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, File{Path: strings.TrimPrefix(p, agent+"/"), Data: b})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the %s plugin this binary carries: %w", agent, err)
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
