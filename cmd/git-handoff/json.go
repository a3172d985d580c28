package main

import (
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/view"
)

// The --json shapes of the commands that only the CLI shows; those every
// surface shows are package view's. Each is made for output and kept
// stable: fields are named for it, not inherited from the records in git, so
// a new field on a record does not appear (or change its meaning) in
// anyone's scripts until it is added on purpose. Every command whose
// text output has notices carries them in "notices" (an empty list, never
// null).

// claimJSON is the result of `claim --json`.
type claimJSON struct {
	Handoff   *view.Baton        `json:"handoff"`
	Claimed   bool               `json:"claimed"`
	Notices   []string           `json:"notices"`
	Conflicts []handoff.Conflict `json:"conflicts,omitempty"`
}

// objectiveResultJSON is the result of `objective --json`.
type objectiveResultJSON struct {
	Objective *view.Objective `json:"objective"` // null when there is none
	Changed   bool            `json:"changed"`
	Redacted  []redact.Hit    `json:"redacted"`
}

// logJSON is the result of `log --json`.
type logJSON struct {
	Events []baton.Event `json:"events"`
}

func toLogJSON(events []baton.Event) logJSON {
	if events == nil {
		events = []baton.Event{}
	}
	return logJSON{Events: events}
}

// hookReportJSON is what `hooks install`, `hooks uninstall` and `init`
// (under "hooks") report: one shape for all three.
type hookReportJSON struct {
	Dir     string           `json:"dir"`
	Form    string           `json:"form"` // config or files ("" when uninstall found nothing of ours)
	Changed bool             `json:"changed"`
	Hooks   []hookResultJSON `json:"hooks"`
	Notices []string         `json:"notices"`
}

type hookResultJSON struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Form   string `json:"form,omitempty"`   // where it was acted on: config or files
	Config string `json:"config,omitempty"` // config form: its friendly name, hook.<config>.*
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
}

func toHookReportJSON(rep hooks.Report) *hookReportJSON {
	out := &hookReportJSON{Dir: rep.Dir, Form: string(rep.Form), Changed: rep.Changed(), Hooks: []hookResultJSON{}, Notices: view.NonNil(rep.Warnings)}
	for _, h := range rep.Hooks {
		out.Hooks = append(out.Hooks, hookResultJSON{Name: h.Name, Path: h.Path, Form: string(h.Form), Config: h.Config, Action: string(h.Action), Detail: h.Detail})
	}
	return out
}

// hooksCheckJSON is the result of `hooks check --json`.
type hooksCheckJSON struct {
	OK     bool              `json:"ok"`
	Hooks  []hookStatusJSON  `json:"hooks"`
	Agents []agentStatusJSON `json:"agents"` // coding agents' hook configuration (hooks.go)
}

type hookStatusJSON struct {
	Name              string `json:"name"`
	Path              string `json:"path"`
	Form              string `json:"form"`             // config or files: where check looked
	Config            string `json:"config,omitempty"` // config form: its friendly name, hook.<config>.*
	State             string `json:"state"`
	Chained           string `json:"chained,omitempty"`
	ChainedExecutable bool   `json:"chainedExecutable,omitempty"`
	Note              string `json:"note,omitempty"`
}
