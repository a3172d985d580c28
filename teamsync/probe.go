package teamsync

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// ProbePrefix holds the refs CheckRemote pushes and deletes again. No fetch
// refspec of ours covers it, so a teammate fetching meanwhile never sees one.
const ProbePrefix = refstore.Root + "probe/"

// CheckResult is what CheckRemote found.
type CheckResult struct {
	Remote string `json:"remote"`
	// Ref is the probe ref pushed.
	Ref string `json:"ref"`
	// Notices say what went wrong in cleaning up, when something did.
	Notices []string `json:"notices"`
}

// RefusedError is a remote that does not accept what our records need.
// Step says what was refused, Why what usually causes that refusal on a
// server, and Err is the push's own error with the server's reason.
type RefusedError struct {
	Remote string
	Step   string
	Why    string
	Err    error
	// Unreachable: the push never got to the server.
	Unreachable bool
}

func (e *RefusedError) Error() string {
	if e.Unreachable {
		return fmt.Sprintf("remote %s could not be reached: %v", e.Remote, e.Err)
	}
	return fmt.Sprintf("remote %s refused to %s: %v", e.Remote, e.Step, e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Hint is the plain explanation of the refusal, for a hint line.
func (e *RefusedError) Hint() string { return e.Why }

// CheckRemote tries on remote exactly what records need, with a probe ref
// under refs/ao/ that it removes again: create a ref pointing at a blob (no
// commit: branch-only rules and hidden refs refuse this), then move it to
// another blob with a forced push under a lease (what every claim and record
// update does: servers without force rights on refs/ao/ refuse it), then
// delete it. A refusal of either of the first two is a *RefusedError saying
// what was refused and why a server does that; a refused delete only leaves
// the probe behind, named in a notice.
//
// Measured on git 2.39: receive.denyNonFastForwards and receive.denyDeletes
// apply to refs/heads/ only, so neither refuses our blob refs;
// receive.hideRefs (or transfer.hideRefs) covering refs/ao refuses the
// create with "deny updating a hidden ref".
func CheckRemote(ctx context.Context, st refstore.Clone, remote string) (CheckResult, error) {
	var nonce [8]byte
	rand.Read(nonce[:])
	ref := ProbePrefix + hex.EncodeToString(nonce[:])
	res := CheckResult{Remote: remote, Ref: ref, Notices: []string{}}
	blob := func(step string) (string, error) {
		return st.WriteBlob(ctx, []byte(fmt.Sprintf("{\"schema\":\"probe/v1\",\"step\":%q,\"note\":\"git handoff init checks that the remote takes records; safe to delete\"}\n", step)))
	}
	first, err := blob("create")
	if err != nil {
		return res, err
	}
	second, err := blob("update")
	if err != nil {
		return res, err
	}
	opts := refstore.PushOptions{NoVerify: true}
	if err := st.Push(ctx, remote, []refstore.Update{{Ref: ref, New: first}}, opts); err != nil {
		return res, refused(remote, "create "+ref+" pointing at a blob", err, whyCreate, askCreate)
	}
	if err := st.Push(ctx, remote, []refstore.Update{{Ref: ref, New: second, Old: first}}, opts); err != nil {
		res.Notices = append(res.Notices, cleanup(ctx, st, remote, ref, first)...)
		return res, refused(remote, "move "+ref+" to another blob with a forced push under a lease", err, whyUpdate, askUpdate)
	}
	res.Notices = append(res.Notices, cleanup(ctx, st, remote, ref, second)...)
	return res, nil
}

// cleanup deletes the probe; failing that, it says what was left behind.
func cleanup(ctx context.Context, st refstore.Remote, remote, ref, old string) []string {
	err := st.Push(ctx, remote, []refstore.Update{{Ref: ref, Old: old}}, refstore.PushOptions{NoVerify: true})
	if err == nil {
		return nil
	}
	return []string{fmt.Sprintf("the probe %s stays on %s, whose server refused to delete it (%v); records work without deletes: remove it with `git push %s :%s` where allowed",
		ref, remote, err, remote, ref)}
}

const (
	whyHidden = "the server hides refs/ao/ (receive.hideRefs or transfer.hideRefs on refs/ao or a prefix of it): " +
		"records cannot live there until its admin removes that entry"
	whyHook   = "a hook on the server refused it (its own words are in the error: gitolite and similar print DENIED): "
	askCreate = "ask its admin for write and force rights on refs/ao/ (gitolite: RW+ on refs/ao/)"
	askUpdate = "ask its admin for force rights on refs/ao/ (gitolite: RW+ rather than RW): every claim and record update is a forced push"
	whyCreate = "servers refuse this when they hide refs/ao/ (receive.hideRefs), when their rules allow only " +
		"branches and tags (a pre-receive or update hook, gitolite, a hosting service's push rules), or when " +
		"you may not push there at all: ask the server's admin for write and force rights on refs/ao/"
	whyUpdate = "the server takes a new ref under refs/ao/ but not a forced update of it: every claim and record " +
		"update is one (blob refs never fast-forward), so ask its admin for force rights on refs/ao/ " +
		"(gitolite: RW+; receive.denyNonFastForwards does not apply outside refs/heads/)"
)

// refused explains a refusal. The server's words say which cause it was
// when they are known ones; otherwise the general explanation stands.
func refused(remote, step string, err error, general, ask string) error {
	text := strings.ToLower(err.Error())
	var ge *refstore.GitError
	if errors.As(err, &ge) {
		text += "\n" + strings.ToLower(ge.Stderr)
	}
	why, unreachable := general, false
	switch {
	case strings.Contains(text, "hidden ref"):
		why = whyHidden
	case strings.Contains(text, "denied") || strings.Contains(text, "hook declined"):
		why = whyHook + ask
	case strings.Contains(text, "could not read from remote") || strings.Contains(text, "does not appear to be a git repository") ||
		strings.Contains(text, "unable to access") || strings.Contains(text, "could not resolve host"):
		unreachable, why = true, "check the remote's URL (`git remote get-url "+remote+"`) and your network or credentials, then run `git handoff init` again"
	}
	return &RefusedError{Remote: remote, Step: step, Why: why, Err: err, Unreachable: unreachable}
}
