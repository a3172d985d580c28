// git-handoff:opencode-plugin v1
// Written by `git handoff init --agent opencode`; removed by `--remove`.
// It runs `git handoff hook agent opencode <event> || true` at a session's
// start and when the session goes idle, and never breaks opencode: every
// failure (no git-handoff, a crash, a timeout) is swallowed.
import { spawn } from "node:child_process"

const TIMEOUT_MS = 15000

// run calls the hook with the event's JSON on stdin and resolves to its
// parsed answer, or null on any failure.
function run(event, input, cwd) {
  return new Promise((resolve) => {
    let done = false
    const finish = (v) => {
      if (!done) {
        done = true
        resolve(v)
      }
    }
    let child
    try {
      child = spawn("git", ["handoff", "hook", "agent", "opencode", event], {
        cwd,
        stdio: ["pipe", "pipe", "ignore"],
      })
    } catch {
      return finish(null)
    }
    let out = ""
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL")
      } catch {}
      finish(null)
    }, TIMEOUT_MS)
    child.on("error", () => {
      clearTimeout(timer)
      finish(null)
    })
    child.stdout.on("data", (b) => {
      out += b
    })
    child.on("close", () => {
      clearTimeout(timer)
      try {
        finish(out.trim() ? JSON.parse(out) : null)
      } catch {
        finish(null)
      }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(input))
  })
}

export const GitHandoff = async ({ client, directory, worktree }) => {
  const cwd = directory || worktree || process.cwd()
  // Per session: the pending or settled start (its context text), whether
  // a turn ran since the last stop, whether our last stop blocked.
  const sessions = new Map()
  const children = new Set() // sub-agent sessions: no baton of their own

  const state = (id) => {
    let s = sessions.get(id)
    if (!s) {
      s = { start: null, context: "", turn: false, blocked: false }
      sessions.set(id, s)
    }
    return s
  }

  // start runs session-start once per session (again after a compaction)
  // and keeps its additionalContext for the system prompt.
  const start = (id, source) => {
    const s = state(id)
    s.start = run("session-start", { session_id: id, cwd, source }, cwd).then((r) => {
      const ctx = r && r.hookSpecificOutput && r.hookSpecificOutput.additionalContext
      s.context = typeof ctx === "string" ? ctx : ""
    })
    return s.start
  }

  // lastReply is the text of the session's last assistant message, which
  // the stop keeps as the session's summary (Claude's Stop hook input
  // carries it as last_assistant_message; opencode's event does not); ""
  // when there is none or it cannot be read.
  const lastReply = async (id) => {
    try {
      const r = await client.session.messages({ path: { id } })
      const msgs = (r && Array.isArray(r.data) && r.data) || []
      for (let i = msgs.length - 1; i >= 0; i--) {
        const m = msgs[i]
        if (!m || !m.info || m.info.role !== "assistant") continue
        const text = (m.parts || [])
          .filter((p) => p && p.type === "text" && typeof p.text === "string" && !p.synthetic)
          .map((p) => p.text)
          .join("\n")
          .trim()
        if (text) return text
      }
    } catch {}
    return ""
  }

  const stop = async (id) => {
    const s = state(id)
    if (!s.turn) return
    s.turn = false
    const input = { session_id: id, cwd, stop_hook_active: s.blocked }
    const reply = await lastReply(id)
    if (reply) input.last_assistant_message = reply
    const r = await run("stop", input, cwd)
    if (r && r.decision === "block" && typeof r.reason === "string" && r.reason && !s.blocked) {
      s.blocked = true
      await client.session.promptAsync({ path: { id }, body: { parts: [{ type: "text", text: r.reason }] } })
      return
    }
    s.blocked = false
  }

  return {
    event: async ({ event }) => {
      try {
        const p = (event && event.properties) || {}
        const info = p.info || {}
        const id = p.sessionID || info.id
        if (!id) return
        if (event.type === "session.created") {
          if (info.parentID) {
            children.add(id)
            return
          }
          if (!state(id).start) await start(id, "startup")
        } else if (event.type === "session.compacted" && !children.has(id)) {
          await start(id, "compact")
        } else if (event.type === "session.idle" && !children.has(id)) {
          await stop(id)
        }
      } catch {}
    },
    // The brief goes into the system prompt, which opencode rebuilds for
    // every model request: the hook runs once per session and its text is
    // kept, never appended to the conversation again and again.
    "experimental.chat.system.transform": async (input, output) => {
      try {
        const id = input && input.sessionID
        if (!id || children.has(id)) return
        const s = state(id)
        s.turn = true
        if (!s.start) start(id, "resume") // a session opencode resumed: no created event here
        await s.start
        if (s.context && output && Array.isArray(output.system)) output.system.push(s.context)
      } catch {}
    },
  }
}
