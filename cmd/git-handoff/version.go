package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

var versionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version of git-handoff and exit"}

// versionCommand is `git handoff version`, the same as `--version`.
func versionCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of git-handoff",
		Action: func(c *cli.Context) error {
			return printVersion(d.stdout)
		},
	}
}

func printVersion(w io.Writer) error {
	_, err := fmt.Fprintf(w, "git handoff version %s\n", buildVersion())
	return err
}

// version is the release this binary was built as, set by `make dist`
// (scripts/dist.sh) with -ldflags "-X main.version=TAG". A release build
// passes -buildvcs=false and -trimpath so that two builds of one tag are
// the same bytes, which leaves the build information without the commit:
// the tag names it instead. Empty in every other build.
var version string

// buildVersion is this binary's version, as --version, the man page and
// the MCP server report it.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return versionOf(nil)
	}
	return versionOf(info)
}

// versionOf is what the build recorded of itself: the module version
// (a tag or pseudo-version when installed with `go install …@v`,
// "(devel)" when built in a checkout) and, when the build saw the
// repository, the commit it was built from and whether it had changes.
func versionOf(info *debug.BuildInfo) string {
	if info == nil {
		return "unknown (no build information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += ", modified"
	}
	return v + " (" + rev + ")"
}
