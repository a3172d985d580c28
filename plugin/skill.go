package plugin

// skillName is the skill's directory, and its name for the agent.
const skillName = "leave-a-baton"

// skill is the skill the plugins carry: when to leave a baton and what
// makes one useful. The body is also Gemini's context file, which has no
// skills of its own to load on demand.
const skill = `---
name: leave-a-baton
description: Leave a git-handoff baton for the next session when you stop with work left, hand a task over, or run low on context. Says what goes in the next steps, failed approaches and open questions, and the exact command.
---
` + skillBody

const skillBody = `# Leaving a baton (git-handoff)

A baton is a note for the next session on this branch, whoever runs it (another agent, a person,
you after a restart). It is claimed exactly once, and shown at the top of that session's brief.

## When

- You are stopping and work is left: unfinished steps, a failing test, a half-made change.
- You hand the task to another agent or a teammate.
- Your context is nearly full, or the user says to wrap up.

Nothing left to do? Leave none: an empty baton only costs the next session time.

## What goes in

- **Next steps** (` + "`--next`" + `): what to do first, as commands or concrete edits, with file
  paths and test names. Start with the step that unblocks the rest.
- **Failed approaches** (` + "`--failed`" + `): what you tried and why it did not work, so the next
  session does not try it again.
- **Open questions** (` + "`--question`" + `): decisions you could not make, for the user or the next
  session.

Each item is one sentence that stands alone: the reader has not seen your conversation. Name
what you know, not what you feel ("the parser drops block comments in strings", not "almost
done"). Commit or stash first; a baton points at work, it does not hold it.

## The command

One flag per item; repeat the flag for more:

` + "```sh" + `
git handoff end \
  --next "make TestLexer/block_comments pass: lexer.go skips */ inside strings" \
  --failed "a regexp pre-pass over the source: it breaks on string literals" \
  --question "should doc comments stay in the AST?"
` + "```" + `

Add ` + "`--shared`" + ` when anyone's next session on any branch may pick it up. ` + "`git handoff show`" + `
prints what is waiting; ` + "`git handoff end --help`" + ` lists the rest.
`

// startSkillName is the skill that asks for the brief where the agent's
// start hook cannot hand it over (Copilot CLI).
const startSkillName = "pick-up-the-baton"

const startSkill = `---
name: pick-up-the-baton
description: At the start of every session in a git repository, before any other work, run git handoff start to claim the baton a previous session left for this branch and read its next steps, failed approaches and open questions.
---
# Picking up the baton (git-handoff)

Run this first, before any other work, and read what it prints:

` + "```sh" + `
git handoff start
` + "```" + `

It claims the baton a previous session left for this branch (exactly once: no other session gets
it) and prints the brief: the baton's next steps, the approaches that failed and the open
questions, then recent activity. Start with the first next step; do not retry a failed approach
without a new reason. Nothing waiting is fine: go on with the user's request.
`
