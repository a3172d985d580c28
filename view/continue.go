package view

import "github.com/git-handoff/git-handoff/handoff"

// Continue is what `continue --in` did, or with Preview would do: the
// command's --json and the page's answer.
type Continue struct {
	Session Session `json:"session"`
	From    string  `json:"from"`
	To      string  `json:"to"`
	Why     string  `json:"why"`
	Preview bool    `json:"preview"`
	Brief   string  `json:"brief"`
	Baton   string  `json:"baton,omitempty"`
	Launch  Launch  `json:"launch"`
	Started bool    `json:"started"`
	// Command starts the new agent when nothing started it (outside tmux).
	Command string `json:"command,omitempty"`
	// Attach attaches a terminal to it when it started under tmux (the
	// page; the command prints it).
	Attach  string   `json:"attach,omitempty"`
	Notices []string `json:"notices"`
}

// OfContinue shapes a continuation's result; notices come first.
func OfContinue(res handoff.ContinueResult, preview bool, notices ...string) Continue {
	out := Continue{
		Session: OfSession(res.Session, false), From: res.From, To: res.Session.Harness, Why: res.Why,
		Preview: preview, Brief: res.Brief, Launch: OfLaunch(res.Plan), Started: res.Started,
		Command: res.Command, Notices: NonNil(append(notices, res.Notices...)),
	}
	if res.Baton != nil {
		out.Baton = res.Baton.ID
	}
	return out
}
