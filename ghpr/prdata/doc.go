// Package prdata holds what git-handoff knows of a GitHub pull request as
// plain values: the repository and pull request, the facts `pr status`
// shows, the ownership comment's text, and the errors GitHub answers with.
//
// It is apart from ghpr, the client that talks to GitHub, so that the
// workflows, the brief and the ownership records can use these shapes
// without linking an HTTP stack: every git-handoff start pays to initialise
// what its binary links, and the hot commands (start, end, the hooks) never
// talk to GitHub.
package prdata
