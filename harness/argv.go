package harness

import (
	"fmt"
	"path/filepath"
	"strings"
)

// argv grows a command line. Values that come from users (prompts, models,
// file names) are always joined to their flag as --flag=value, or placed after
// "--", so a value starting with "-" can never be read as a flag.
type argv []string

func (a argv) flag(name, value string) argv {
	if value == "" {
		return a
	}
	return append(a, name+"="+value)
}

// model adds --model=value when a model was asked for.
func (a argv) model(m string) argv { return a.flag("--model", m) }

// positional ends flag parsing and adds values as positional arguments.
func (a argv) positional(values ...string) argv {
	return append(append(a, "--"), values...)
}

// promptText is the first message for agents that take text: the prompt
// itself, or a pointer to the brief file when only a file was given.
func promptText(o LaunchOptions) (text, note string) {
	if o.Prompt != "" {
		return o.Prompt, ""
	}
	return fmt.Sprintf("Read the handoff brief in %s before doing anything else.", o.PromptFile),
		"the brief was passed as a pointer to its file"
}

// safePath keeps a relative file name that starts with "-" (or is "-",
// which many tools read as standard input) from looking like a flag.
func safePath(p string) string {
	if strings.HasPrefix(p, "-") {
		return "." + string(filepath.Separator) + p
	}
	return p
}
