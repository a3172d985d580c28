// The status page. Everything a record says is someone else's text: it
// goes into the DOM as text nodes (textContent), never as markup. Every
// action is one request to the API, which calls the workflow the command
// of the same name calls; the page decides nothing about records.
"use strict";

const token = document.querySelector('meta[name="handoff-token"]').content;
const projectSelect = document.getElementById("project");
const lastRead = document.getElementById("last-read");
const message = document.getElementById("message");
const signingLine = document.getElementById("signing");
const showClaimed = document.getElementById("show-claimed");
const showEnded = document.getElementById("show-ended");
const dialog = document.getElementById("dialog");
const SVG = "http://www.w3.org/2000/svg";

// How many claimed batons the board shows (the newest claims): enough to
// see who took what lately, not a history.
const RECENT_CLAIMED = 10;
// How often the panes of live agents are read again. The server serves a
// capture for a few seconds to every page, so tmux is asked at most that
// often per session, however many pages are open.
const PANE_EVERY_MS = 10000;
const PANE_LINES = 4;
const MAX_PANES = 16;

let stream = null;
let loading = null;
let again = false;
let shownRoot = null; // the ref state the page shows (lastSeenRoot)
let latestRoot = null; // the newest the change stream announced
let lastHandoffs = null, lastSessions = null;
let agents = [];
const paneLines = new Map(); // session id -> {lines, state} last read

// el builds an element; string children become text nodes.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}

function project() { return projectSelect.value; }

function api(path, opts) {
  const sep = path.includes("?") ? "&" : "?";
  const url = path.startsWith("/api/projects") || path.startsWith("/api/agents") ? path : path + sep + "project=" + encodeURIComponent(project());
  const init = Object.assign({ headers: {} }, opts || {});
  init.headers["Authorization"] = "Bearer " + token;
  if (init.body) init.headers["Content-Type"] = "application/json";
  return fetch(url, init).then(async (r) => {
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    if (!r.ok) {
      const err = new Error(body && body.error ? body.error : r.status + " " + r.statusText);
      err.status = r.status;
      throw err;
    }
    return body;
  });
}

function post(path, body) {
  return api(path, { method: "POST", body: JSON.stringify(body || {}) });
}

// say shows the answer to the last action; extra elements (an undo
// button, a command to copy) go beside the text. It stays until the next
// action or until closed: an undo must not vanish while it still works.
function say(text, kind, ...extra) {
  if (!text) { message.hidden = true; message.replaceChildren(); return; }
  const close = el("button", { type: "button", class: "close", "aria-label": "Close the message", text: "×" });
  close.addEventListener("click", () => say(""));
  message.className = kind || "";
  message.replaceChildren(el("span", { class: "text", text }), ...extra, close);
  message.hidden = false;
}

function noticesText(res) {
  return res && res.notices && res.notices.length ? " (" + res.notices.join("; ") + ")" : "";
}

function age(from, now) {
  const s = Math.max(0, Math.round((new Date(now) - new Date(from)) / 1000));
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m";
  if (s < 86400) return Math.floor(s / 3600) + "h";
  return Math.floor(s / 86400) + "d";
}

function stamp(t) {
  if (!t) return "—";
  const d = new Date(t);
  return isNaN(d) ? "—" : d.toISOString().replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, " UTC");
}

function base(path) {
  if (!path) return "—";
  const parts = path.replace(/\/+$/, "").split("/");
  return parts[parts.length - 1] || path;
}

// safeURL keeps only web links: a record's URL never becomes javascript:.
function safeURL(u) {
  try {
    const p = new URL(u);
    return p.protocol === "https:" || p.protocol === "http:" ? p.href : null;
  } catch (e) { return null; }
}

// keepFocus re-renders without losing the keyboard's place or the notes
// a person opened: the element with the same data-key gets the focus
// back, and open details stay open.
function keepFocus(root, render) {
  const key = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  const open = new Set([...root.querySelectorAll("details[open][data-key]")].map((d) => d.dataset.key));
  render();
  for (const k of open) {
    const d = root.querySelector('details[data-key="' + CSS.escape(k) + '"]');
    if (d) d.open = true;
  }
  if (key) {
    const back = document.querySelector('[data-key="' + CSS.escape(key) + '"]');
    if (back) back.focus();
  }
}

function list(title, items, tag) {
  if (!items || items.length === 0) return null;
  return [el("h4", { text: title }), el(tag || "ul", {}, ...items.map((t) => el("li", { text: t })))];
}

// ---- dialogs ----------------------------------------------------------

// ask shows the dialog and resolves with the form's values when the
// person confirms, or null when they cancel. The answer is taken from the
// form's submit, which happens at the click: the dialog's close event comes
// later, and may come after the dialog was opened again for the next
// question, which it must not answer.
let answer = null; // the resolve of the question the dialog shows
function ask(title, okText, body, danger) {
  if (answer) answer(null);
  return new Promise((resolve) => {
    answer = resolve;
    document.getElementById("dialog-title").textContent = title;
    document.getElementById("dialog-body").replaceChildren(...body);
    const ok = document.getElementById("dialog-ok");
    ok.textContent = okText;
    ok.className = danger ? "primary danger" : "primary";
    dialog.returnValue = "";
    dialog.showModal();
    const first = dialog.querySelector("#dialog-body input, #dialog-body textarea, #dialog-body select");
    (first || ok).focus();
  });
}

function answered(values) {
  const r = answer;
  answer = null;
  if (r) r(values);
}

document.getElementById("dialog-form").addEventListener("submit", (ev) => {
  if (!ev.submitter || ev.submitter.value !== "ok") return answered(null);
  const values = {};
  for (const f of dialog.querySelectorAll("#dialog-body [name]")) values[f.name] = f.value;
  answered(values);
});
// Escape, or anything else that closes it without a submit, is a no.
dialog.addEventListener("cancel", () => answered(null));
dialog.addEventListener("close", () => { if (!dialog.open) answered(null); });

// ---- batons -----------------------------------------------------------

function signs() { return !!(lastHandoffs && lastHandoffs.signing && lastHandoffs.signing.signs); }

// signature is a baton's verification as a badge, shown only where the
// repository signs or the baton itself carries a signature: in a
// repository that signs nothing, "unverified" on every baton is noise.
function signature(h) {
  const s = h.signature;
  if (!s || (!signs() && !s.format)) return null;
  const text = s.state === "signed by someone else" ? "signed by " + (s.signer || "someone else") : s.state;
  const why = [s.signer && "signer: " + s.signer, s.format && "format: " + s.format, s.reason].filter(Boolean).join("; ");
  const cls = s.trusted ? "verified" : (s.format ? "bad" : "unverified");
  return el("span", { class: "badge sig " + cls, "data-state": s.state, title: why, text });
}

function renderSigning(data) {
  const sg = data.signing || {};
  document.body.classList.toggle("signs", !!sg.signs);
  if (sg.signs) {
    signingLine.textContent = sg.requireSigned ? "Records are signed; batons not verifiably their owner's are not delivered." : "Records are signed here.";
  } else {
    signingLine.textContent = "Records in this repository are unsigned: who left a baton is what its record says.";
  }
  signingLine.hidden = false;
}

function renderHandoffs(data) {
  lastHandoffs = data;
  renderSigning(data);
  const body = document.getElementById("handoffs-body");
  const waiting = data.items.filter((h) => !h.claimed);
  const claimed = data.items.filter((h) => h.claimed)
    .sort((a, b) => new Date(b.claimedAt || 0) - new Date(a.claimedAt || 0)).slice(0, RECENT_CLAIMED);
  const rows = waiting.concat(showClaimed.checked ? claimed : []).map((h) => batonRow(h, data.now));
  document.getElementById("handoffs-count").textContent = waiting.length + " waiting" +
    (claimed.length ? " · " + claimed.length + " claimed lately" : "");
  if (rows.length === 0) rows.push(el("tr", {}, el("td", { colspan: 8, class: "empty", text: "No baton is waiting." })));
  keepFocus(body, () => body.replaceChildren(...rows));
}

function batonRow(h, now) {
  const steps = h.nextSteps || [];
  const rest = steps.length - 1 + (h.failedApproaches || []).length + (h.openQuestions || []).length;
  const notes = el("details", { class: "notes", "data-key": "notes:" + h.id },
    el("summary", { title: steps[0] || "" }, steps[0] || "—", rest > 0 ? el("span", { class: "more", text: " +" + rest }) : null),
    ...(list("Next steps", steps, "ol") || []),
    ...(list("Failed approaches", h.failedApproaches) || []),
    ...(list("Open questions", h.openQuestions) || []),
    h.head ? el("p", { class: "more" }, "at commit ", el("code", { text: h.head })) : null);
  let action = null;
  if (!h.claimed) {
    action = el("button", { type: "button", class: "dismiss", "data-id": h.id, "data-key": "dismiss:" + h.id,
      "aria-label": "Dismiss baton " + h.id, text: "Dismiss" });
    action.addEventListener("click", () => dismiss(h));
  }
  const sig = signature(h);
  return el("tr", { "data-id": h.id, class: h.claimed ? "baton claimed" : "baton waiting" },
    el("td", { class: "state state-" + (h.claimed ? "claimed" : "waiting") }, el("span", { class: "dot" }), h.claimed ? "claimed" : "waiting"),
    el("td", { class: "owner", text: h.owner }),
    el("td", { class: "branch nowrap" }, h.branch, h.shared ? " " : null, h.shared ? el("span", { class: "badge shared", text: "shared" }) : null),
    el("td", { class: "age", title: stamp(h.createdAt), text: age(h.createdAt, now) }),
    el("td", { class: "next" }, notes,
      h.signature && h.signature.fenced && (signs() || h.signature.format)
        ? el("div", { class: "fenced", text: "Not verifiably " + h.owner + "'s: data to weigh, not instructions." }) : null),
    el("td", { class: "by nowrap" },
      el("div", { class: "left-by" }, h.harness || "—", h.sessionId ? [" ", el("code", { class: "more", text: h.sessionId })] : null,
        h.auto ? [" ", el("span", { class: "badge auto", title: "written by git-handoff: the session ended without a baton (" + (h.auto.why || "") + ")", text: "auto" })] : null),
      h.claimed ? el("div", { class: "claimed-by" }, "→ ", el("code", { text: h.claimedBySession || "?" }),
        h.claimedAt ? el("span", { class: "more", title: stamp(h.claimedAt), text: " " + age(h.claimedAt, now) }) : null) : null),
    el("td", { class: "sig-col" }, sig),
    el("td", { class: "actions" }, action));
}

async function dismiss(h) {
  const ok = await ask("Dismiss baton " + h.id + "?", "Dismiss", [
    el("p", {}, "The baton ", el("strong", { text: h.owner + " · " + h.branch }), " left by " + (h.harness || "an unknown agent") +
      " will not be delivered to the next session. You can undo this until something else is written there."),
    el("ol", {}, ...(h.nextSteps || []).map((t) => el("li", { text: t }))),
  ], true);
  if (!ok) return;
  try {
    const res = await api("/api/handoffs/" + encodeURIComponent(h.id), { method: "DELETE" });
    const undo = el("button", { type: "button", class: "undo", "data-id": h.id, text: "Undo" });
    undo.addEventListener("click", () => undismiss(h.id, undo));
    say("Dismissed baton " + h.id + "." + noticesText(res), "ok", undo);
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

async function undismiss(id, btn) {
  btn.disabled = true;
  try {
    const res = await post("/api/handoffs/" + encodeURIComponent(id) + "/restore");
    say("Baton " + id + " is waiting again." + noticesText(res), "ok");
  } catch (e) {
    say("Could not undo the dismissal: " + e.message, "error");
  }
  refresh(true);
}

// ---- sessions ---------------------------------------------------------

// stateOf is what a row says of a session: live or exited when tmux ran
// its agent, else its recorded status.
function stateOf(s) {
  const rt = s.runtime;
  if (s.status === "active" && rt && rt.state && rt.state !== "gone") return rt.state;
  return s.status;
}

function stateText(s) {
  const rt = s.runtime;
  let t = stateOf(s);
  if (rt && rt.state === "exited") t += rt.signal ? " (signal " + rt.signal + ")" : " (status " + (rt.exitStatus ?? "?") + ")";
  if (s.status === "active" && (!rt || !rt.state || rt.state === "gone")) t += rt && rt.state === "gone" ? ", tmux gone" : ", not under tmux";
  if (s.endReason && s.status !== "active") t += " (" + s.endReason + ")";
  if (s.switching) t += " (switching to " + s.switching.to + ")";
  return t;
}

function agentSelect(s) {
  const names = agents.filter((a) => a.installed).map((a) => a.name);
  if (s.harness && !names.includes(s.harness)) names.unshift(s.harness);
  const sel = el("select", { class: "agent-select", "data-id": s.id, "data-key": "agent:" + s.id,
    "aria-label": "Agent of session " + s.id + " (changing it switches the session to that agent)" });
  for (const n of names) {
    const o = el("option", { value: n, text: n });
    if (n === s.harness) o.selected = true;
    sel.append(o);
  }
  if (!s.harness) sel.prepend(el("option", { value: "", text: "—", selected: true }));
  sel.addEventListener("change", () => switchAgent(s, sel));
  return sel;
}

async function switchAgent(s, sel) {
  const to = sel.value;
  if (!to || to === s.harness) return;
  sel.disabled = true;
  try {
    const res = await post("/api/sessions/" + encodeURIComponent(s.id) + "/switch", { harness: to });
    let text = "Session " + s.id + " switched from " + (res.from || "none") + " to " + res.session.harness + ".";
    if (res.launch && res.launch.argv.length > 0 && !(res.session.runtime)) text += " Start it with: git handoff session launch " + s.id + " --tmux";
    if (res.launch && res.launch.note) text += " (" + res.launch.note + ")";
    say(text + noticesText(res), "ok");
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

function button(text, cls, id, label, fn) {
  const b = el("button", { type: "button", class: cls, "data-id": id, "data-key": cls + ":" + id, "aria-label": label, text });
  b.addEventListener("click", () => fn(b));
  return b;
}

// copyLine shows a command in a field that selects itself, and copies it
// where the browser lets the page write the clipboard.
async function copyLine(prefix, line) {
  const field = el("input", { type: "text", class: "copy-line", readonly: true, value: line, "aria-label": "Command to copy", size: line.length });
  field.addEventListener("focus", () => field.select());
  let copied = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(line);
      copied = true;
    }
  } catch (e) { copied = false; }
  say(prefix + (copied ? " Copied:" : " Copy:"), "ok", field);
  if (!copied) { field.focus(); field.select(); }
  message.dataset.copied = copied ? "yes" : "no";
}

async function attach(s, btn) {
  btn.disabled = true;
  try {
    const res = await api("/api/sessions/" + encodeURIComponent(s.id) + "/attach");
    await copyLine("Attach a terminal to session " + s.id + "'s agent.", res.command);
  } catch (e) {
    say(e.message, "error");
  }
  btn.disabled = false;
}

async function launch(s, btn) {
  btn.disabled = true;
  try {
    const res = await post("/api/sessions/" + encodeURIComponent(s.id) + "/launch");
    await copyLine("Session " + s.id + " runs " + res.launch.harness + " in tmux session " + res.runtime.name + "." + noticesText(res), res.attach);
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

async function restore(s) {
  const v = await ask("Restore session " + s.id + "?", "Restore", [
    el("p", { text: "The session comes back under its own id with " + (s.harness || "its agent") +
      ", in its worktree (re-created if it is gone); its agent resumes its own conversation where it can." }),
    el("label", { for: "restore-prompt", text: "Task for a fresh start (optional)" }),
    el("textarea", { id: "restore-prompt", name: "prompt", rows: 2 }),
  ]);
  if (!v) return;
  try {
    const res = await post("/api/sessions/" + encodeURIComponent(s.id) + "/restore", v.prompt ? { prompt: v.prompt } : {});
    let text = res.changed ? "Session " + s.id + " restored with " + res.session.harness + "." : "Session " + s.id + " was active already: nothing to restore.";
    if (res.recreated) text += " Re-created its worktree " + res.recreated + ".";
    if (res.attach) {
      await copyLine(text + noticesText(res), res.attach);
    } else {
      if (res.changed && res.launch && res.launch.argv.length) text += " Start its agent with Launch.";
      say(text + noticesText(res), "ok");
    }
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

async function replace(s) {
  const names = agents.filter((a) => a.installed).map((a) => a.name);
  const sel = el("select", { id: "replace-agent", name: "harness" }, el("option", { value: "", text: "same as now (" + (s.harness || "none") + ")" }),
    ...names.map((n) => el("option", { value: n, text: n })));
  const v = await ask("Replace session " + s.id + "?", "Replace", [
    el("p", { text: "A new session takes over its worktree, baton and pull request; this one is marked replaced and its agent stopped." }),
    el("label", { for: "replace-reason", text: "Reason (shown in the lineage)" }),
    el("input", { type: "text", id: "replace-reason", name: "reason", required: true, placeholder: "stuck in a loop on the parser" }),
    el("label", { for: "replace-agent", text: "Agent of the new session" }), sel,
    el("label", { for: "replace-context", text: "Carry over" }),
    el("select", { id: "replace-context", name: "carryContext" }, el("option", { value: "summary", text: "its summary and recent output" }), el("option", { value: "none", text: "nothing but the baton" })),
  ], true);
  if (!v) return;
  try {
    const body = { reason: v.reason, carryContext: v.carryContext };
    if (v.harness) body.harness = v.harness;
    const res = await post("/api/sessions/" + encodeURIComponent(s.id) + "/replace", body);
    say("Session " + s.id + " replaced by " + res.new.id + " (" + res.new.harness + "), reason: " + v.reason + "." + noticesText(res), "ok");
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

// continueIn is `git handoff continue --in AGENT`: pick the agent, read
// the brief it would get (the preview changes nothing), then confirm.
async function continueIn(s) {
  const names = agents.filter((a) => a.installed && a.name !== s.harness).map((a) => a.name);
  if (names.length === 0) {
    say("No other agent is installed on this machine to continue session " + s.id + " in.", "error");
    return;
  }
  const pick = await ask("Continue session " + s.id + " in another agent", "Preview", [
    el("p", { text: "The session goes on in the same worktree with another agent (until now " + (s.harness || "none") +
      "), whose first prompt is a brief of where the work is. The preview shows that brief and changes nothing." }),
    el("label", { for: "continue-agent", text: "Agent" }),
    el("select", { id: "continue-agent", name: "in" }, ...names.map((n) => el("option", { value: n, text: n }))),
    el("label", { for: "continue-model", text: "Model (optional: the agent's default)" }),
    el("input", { type: "text", id: "continue-model", name: "model" }),
  ]);
  if (!pick) return;
  const q = "?in=" + encodeURIComponent(pick.in) + (pick.model ? "&model=" + encodeURIComponent(pick.model) : "");
  let preview;
  try {
    preview = await api("/api/sessions/" + encodeURIComponent(s.id) + "/continue" + q);
  } catch (e) {
    say(e.message, "error");
    return;
  }
  const ok = await ask("Continue session " + s.id + " in " + preview.to + "?", "Continue in " + preview.to, [
    el("p", { text: (stateOf(s) === "live" ? "Its agent is stopped in its tmux pane and " + preview.to + " starts there" :
      "The continuation is recorded, and you are given the command that starts " + preview.to) + ". " + preview.to + "'s first prompt:" }),
    el("pre", { class: "brief", tabindex: 0, text: preview.brief }),
    ...(preview.notices.length ? [el("p", { class: "more", text: preview.notices.join("; ") })] : []),
  ]);
  if (!ok) return;
  try {
    // From: what the preview showed; continued by someone else since,
    // the session is refused rather than continued twice.
    const body = { in: pick.in, from: preview.from };
    if (pick.model) body.model = pick.model;
    const res = await post("/api/sessions/" + encodeURIComponent(s.id) + "/continue", body);
    let text = "Session " + s.id + " continues in " + res.to + " (" + res.why + ").";
    if (res.baton) text += " Its automatic handoff is baton " + res.baton + ".";
    if (res.started) await copyLine(text + " It runs in its tmux pane; attach to it." + noticesText(res), res.attach);
    else await copyLine(text + " Start it in a terminal, in the session's worktree." + noticesText(res), res.command);
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

function sessionActions(s) {
  const out = [];
  const st = stateOf(s);
  if (s.readOnly || s.status === "replaced") return out;
  if (st === "live" && s.attach) {
    out.push(button("Attach", "attach", s.id, "Copy the command that attaches to session " + s.id, (b) => attach(s, b)));
  }
  if (s.status === "active" && st !== "live" && !s.otherHost) {
    out.push(button("Launch", "launch", s.id, "Launch session " + s.id + "'s agent in tmux", (b) => launch(s, b)));
  }
  if (s.status === "ended" || s.status === "terminated") {
    out.push(button("Restore", "restore", s.id, "Restore session " + s.id, () => restore(s)));
  }
  if (s.status === "active" && !s.switching) {
    out.push(button("Continue in…", "continue", s.id, "Continue session " + s.id + " in another agent", () => continueIn(s)));
  }
  if (s.status === "active") {
    out.push(button("Replace", "replace", s.id, "Replace session " + s.id, () => replace(s)));
  }
  return out;
}

function workCell(s) {
  const lines = [];
  if (s.objective) lines.push(el("div", { class: "objective" }, el("span", { class: "label", text: "objective" }), s.objective.text));
  if (s.summary) lines.push(el("div", { class: "summary" }, el("span", { class: "label", text: "summary" }), s.summary));
  const b = s.claimedHandoff;
  if (b) lines.push(el("div", { class: "claimed-baton" }, el("span", { class: "label", text: "baton" }), el("code", { text: b.id }), " " + ((b.nextSteps || [])[0] || "")));
  if (s.pr) lines.push(el("div", {}, el("span", { class: "label", text: "PR" }), s.pr.repo + "#" + s.pr.number));
  if (s.supersedes || s.handoffReason) lines.push(el("div", { class: "more" }, "took over from ", el("code", { text: s.supersedes || "?" }), s.handoffReason ? " (" + s.handoffReason + ")" : ""));
  if (s.replacedBy) lines.push(el("div", { class: "more" }, "replaced by ", el("code", { text: s.replacedBy })));
  const k = s.continued;
  if (k) {
    lines.push(el("div", { class: "continued" }, el("span", { class: "label", text: "continued" }),
      (k.from || "?") + " → " + (k.to || "?") + (k.auto ? " by itself" : " by hand") + ": " + (k.why || "")));
    if (k.start) lines.push(el("div", { class: "more" }, "start it: ", el("code", { class: "start", text: k.start })));
  }
  if (lines.length === 0) lines.push(el("span", { class: "more", text: "—" }));
  return el("td", { class: "work" }, ...lines);
}

function paneCell(s) {
  const p = paneLines.get(s.id);
  if (stateOf(s) !== "live" && stateOf(s) !== "exited") return el("td", { class: "pane-cell pane-col" });
  if (!p) return el("td", { class: "pane-cell pane-col" }, el("span", { class: "more", text: "reading…" }));
  if (p.error) return el("td", { class: "pane-cell pane-col" }, el("span", { class: "more", text: p.error }));
  return el("td", { class: "pane-cell pane-col" }, el("pre", { class: "pane", "data-id": s.id, title: "last lines of its tmux pane, read " + stamp(p.at), text: p.lines.join("\n") }));
}

const ORDER = { live: 0, active: 1, exited: 2, terminated: 3, ended: 4, replaced: 5, merged: 6 };

function renderSessions(data) {
  lastSessions = data;
  const body = document.getElementById("sessions-body");
  const items = data.items.slice().sort((a, b) => (ORDER[stateOf(a)] ?? 9) - (ORDER[stateOf(b)] ?? 9) || new Date(b.updatedAt) - new Date(a.updatedAt));
  const shown = items.filter((s) => showEnded.checked || s.status === "active");
  const active = items.filter((s) => s.status === "active").length;
  document.getElementById("sessions-count").textContent = active + " active · " + items.filter((s) => stateOf(s) === "live").length + " live under tmux";
  const rows = shown.map((s) => {
    let agent;
    if (s.readOnly) {
      agent = el("span", { class: "readonly", "data-id": s.id }, s.harness || "—", " ", el("span", { class: "badge", text: "read-only" }));
    } else if (s.status !== "active") {
      // Changing the agent never revives a session: that is Restore.
      agent = el("span", { class: "not-active", "data-id": s.id }, s.harness || "—");
    } else {
      agent = agentSelect(s);
    }
    return el("tr", { "data-id": s.id, class: "status-" + s.status },
      el("th", { scope: "row" }, el("code", { text: s.id }), s.model ? el("div", { class: "more", text: s.model }) : null),
      el("td", { class: "state state-" + stateOf(s) }, el("span", { class: "dot" }), stateText(s)),
      el("td", {}, agent),
      el("td", { class: "where" },
        el("div", { class: "branch" }, s.branch || "—"),
        el("div", { class: "more" }, el("span", { class: "worktree", title: s.worktree || "" }, base(s.worktree)), " @ ",
          el("span", { class: "host" }, s.host || "—"), s.otherHost ? " (another host)" : "")),
      workCell(s),
      paneCell(s),
      el("td", { class: "age", title: stamp(s.updatedAt), text: age(s.updatedAt, data.now) }),
      el("td", { class: "actions" }, ...sessionActions(s)));
  });
  if (rows.length === 0) rows.push(el("tr", {}, el("td", { colspan: 8, class: "empty", text: "No sessions." })));
  // The Pane column only while some agent has a pane to show.
  document.getElementById("sessions-table").classList.toggle("no-panes", !shown.some((s) => stateOf(s) === "live" || stateOf(s) === "exited"));
  keepFocus(body, () => body.replaceChildren(...rows));
}

// readPanes reads the last lines of every live agent's pane (at most
// MAX_PANES, one after another) and redraws the sessions.
let panesBusy = false;
async function readPanes() {
  if (panesBusy || !lastSessions) return;
  panesBusy = true;
  try {
    const live = lastSessions.items.filter((s) => stateOf(s) === "live" || stateOf(s) === "exited").slice(0, MAX_PANES);
    for (const s of live) {
      try {
        const p = await api("/api/sessions/" + encodeURIComponent(s.id) + "/pane?lines=" + PANE_LINES);
        paneLines.set(s.id, { lines: p.lines, at: p.at });
      } catch (e) {
        paneLines.set(s.id, { error: e.message });
      }
    }
    if (live.length) renderSessions(lastSessions);
  } finally {
    panesBusy = false;
  }
}

// ---- leases -------------------------------------------------------------

// duration says a number of seconds as a person reads it.
function duration(sec) {
  const s = Math.max(0, Math.round(sec));
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + (s % 60 ? " " + (s % 60) + "s" : "");
  return Math.floor(s / 3600) + "h" + (Math.floor(s / 60) % 60 ? " " + (Math.floor(s / 60) % 60) + "m" : "");
}

// freesText is when a held lease frees if its holder stops renewing it,
// by this machine's clock: the holder's renewals push it on.
function freesText(l) {
  if (l.state !== "held") return l.state;
  if (l.expired) return "now (unrenewed for its " + l.ttl + ")";
  if (l.freesInSeconds === null || l.freesInSeconds === undefined) return "unknown";
  return "in " + duration(l.freesInSeconds) + " unless renewed";
}

function renderLeases(data) {
  const body = document.getElementById("leases-body");
  const count = document.getElementById("leases-count");
  if (data.error) {
    count.textContent = "";
    body.replaceChildren(el("tr", {}, el("td", { colspan: 5, class: "error", text: data.error })));
    return;
  }
  count.textContent = data.total + " held · decided at " + data.where;
  const rows = data.items.map((l) => {
    const action = l.yours
      ? button("Release", "release", l.key, "Release lease " + l.key, (b) => releaseLease(l, b))
      : button("Break", "break", l.key, "Break lease " + l.key, (b) => breakLease(l, b));
    return el("tr", { "data-lease": l.key },
      el("th", { scope: "row" }, el("code", { class: "lease-key", text: l.key }), l.offline ? [" ", el("span", { class: "badge", title: "taken in one clone without the arbiter", text: "offline" })] : null),
      el("td", { class: "holder" }, (l.agent || "a person") + " · ", el("code", { text: l.session }), el("div", { class: "more", text: l.owner || "—" })),
      el("td", { class: "note", text: l.note || "" }),
      el("td", { class: "frees nowrap", title: l.freesAt ? stamp(l.freesAt) : "", text: freesText(l) }),
      el("td", { class: "actions" }, action));
  });
  if (rows.length === 0) rows.push(el("tr", {}, el("td", { colspan: 5, class: "empty", text: "No lease is held." })));
  keepFocus(body, () => body.replaceChildren(...rows));
}

async function releaseLease(l, btn) {
  const ok = await ask("Release " + l.key + "?", "Release", [
    el("p", { text: "Session " + l.session + " (" + (l.agent || "a person") + ") holds it; released, any session can take it at once." }),
  ]);
  if (!ok) return;
  btn.disabled = true;
  try {
    const res = await post("/api/leases/release", { key: l.key, session: l.session });
    say("Released " + l.key + " (held by session " + l.session + ")." + noticesText(res), "ok");
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

async function breakLease(l, btn) {
  const v = await ask("Break " + l.key + "?", "Break", [
    el("p", { text: "Session " + l.session + " of " + (l.owner || "someone") + " (" + (l.agent || "a person") + ") holds it, " +
      freesText(l) + ". Break it when its holder is gone; if it is alive, it will find its lease taken." }),
    el("label", { for: "break-reason", text: "Reason (kept in git handoff log)" }),
    el("input", { type: "text", id: "break-reason", name: "reason", required: true, placeholder: "its agent crashed an hour ago" }),
  ], true);
  if (!v) return;
  btn.disabled = true;
  try {
    const res = await post("/api/leases/break", { key: l.key, session: l.session, reason: v.reason });
    say("Broke " + l.key + " (held by session " + l.session + "): " + v.reason + "." + noticesText(res), "ok");
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

// ---- lineage ------------------------------------------------------------

// textWidth measures a label as the drawing will show it, so boxes and
// arrows are as wide as their whole text.
const measure = document.createElement("canvas").getContext("2d");
function textWidth(text, font) {
  measure.font = font;
  return Math.ceil(measure.measureText(text).width);
}

// drawChain draws one line of sessions as SVG: a box per session, oldest
// on the left, an arrow labelled with the whole reason to its successor.
function drawChain(view) {
  const h = 50, pad = 8;
  const n = view.chain.length;
  const widths = view.chain.map((c) => Math.max(120,
    textWidth(c.id, "600 13px ui-monospace, Menlo, Consolas, monospace") + 24,
    textWidth((c.harness || "—") + " · " + c.status, "12px system-ui, sans-serif") + 24));
  const gaps = view.chain.slice(0, -1).map((c) => Math.max(56, textWidth(c.reason || "", "12px system-ui, sans-serif") + 28));
  const width = pad * 2 + widths.reduce((a, b) => a + b, 0) + gaps.reduce((a, b) => a + b, 0);
  const height = h + pad * 2 + 4;
  const root = svg("svg", { class: "lineage", viewBox: "0 0 " + width + " " + height, width: width, height: height, role: "img" });
  const title = svg("title", {});
  title.textContent = "Lineage: " + view.chain.map((c) => c.id).join(" replaced by ");
  root.append(title);
  const defs = svg("defs", {});
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow-head" }));
  defs.append(marker);
  root.append(defs);
  let x = pad;
  view.chain.forEach((c, i) => {
    const w = widths[i], y = pad;
    const g = svg("g", { class: "node status-" + c.status, "data-id": c.id });
    g.append(svg("rect", { x: x, y: y, width: w, height: h, rx: 7 }));
    const t1 = svg("text", { x: x + 12, y: y + 20, class: "node-id" });
    t1.textContent = c.id;
    const t2 = svg("text", { x: x + 12, y: y + 39, class: "node-meta" });
    t2.textContent = (c.harness || "—") + " · " + c.status;
    g.append(t1, t2);
    root.append(g);
    x += w;
    if (i + 1 < n) {
      const gap = gaps[i];
      root.append(svg("line", { x1: x, y1: y + h / 2, x2: x + gap - 2, y2: y + h / 2, class: "edge", "marker-end": "url(#arrow)" }));
      const r = svg("text", { x: x + gap / 2, y: y + h / 2 - 6, class: "edge-label", "text-anchor": "middle" });
      r.textContent = c.reason || "";
      root.append(r);
      x += gap;
    }
  });
  return root;
}

async function renderLineage(sessions) {
  const root = document.getElementById("lineage-list");
  // One drawing per line: ask for the line of each session that has a
  // predecessor or successor, skipping those already drawn.
  const seen = new Set();
  const out = [];
  for (const s of sessions) {
    if (seen.has(s.id) || (!s.supersedes && !s.replacedBy)) continue;
    if (out.length >= 20) break;
    try {
      const res = await api("/api/sessions/" + encodeURIComponent(s.id) + "/lineage");
      res.lineage.chain.forEach((c) => seen.add(c.id));
      out.push(el("figure", { class: "chain" }, drawChain(res.lineage),
        el("figcaption", { text: res.lineage.chain.map((c) => c.id + (c.reason ? " (" + c.reason + ")" : "")).join(" → ") })));
    } catch (e) {
      out.push(el("p", { class: "error", text: e.message }));
    }
  }
  if (out.length === 0) out.push(el("p", { class: "empty", text: "No session has been replaced yet." }));
  root.replaceChildren(...out);
}

function renderPRs(data) {
  const body = document.getElementById("prs-body");
  const rows = data.items.map((p) => {
    const name = p.repo + "#" + p.number;
    const url = safeURL(p.url);
    const link = url ? el("a", { href: url, rel: "noreferrer noopener", text: name }) : el("span", { text: name });
    const hist = el("ol", { class: "history" }, ...p.history.map((t) =>
      el("li", {}, el("time", { text: stamp(t.at) }), " ", (t.from || "—") + " → " + (t.session || "nobody"), t.reason ? " (" + t.reason + ")" : "")));
    return el("tr", { "data-pr": name },
      el("th", { scope: "row" }, link, p.mergedAt ? el("span", { class: "badge", text: "merged" }) : null),
      el("td", {}, el("code", { text: p.ownerSession || "nobody (released)" })),
      el("td", { title: stamp(p.claimedAt), text: p.ownerSession ? age(p.claimedAt, data.now) : "—" }),
      el("td", {}, el("details", {}, el("summary", { text: p.history.length + " change" + (p.history.length === 1 ? "" : "s") }), hist)));
  });
  if (rows.length === 0) rows.push(el("tr", {}, el("td", { colspan: 4, class: "empty", text: "No session owns a pull request." })));
  body.replaceChildren(...rows);
}

// ---- reading ------------------------------------------------------------

// refresh reads everything the page shows; a change that arrives while
// reading reads again afterwards.
function refresh(force) {
  // force: after our own change, whatever the stream has said so far.
  if (loading) { again = force ? "force" : (again || true); return loading; }
  loading = (async () => {
    try {
      // The leases may be decided at a remote that cannot be read now:
      // that is said in their panel, and the rest is shown all the same.
      const [handoffs, sessions, prs, ag, leases] = await Promise.all([
        api("/api/handoffs?recentClaimed=" + RECENT_CLAIMED), api("/api/sessions?all=true"), api("/api/prs"), api("/api/agents"),
        api("/api/leases").catch((e) => ({ error: e.message, notices: [] })),
      ]);
      agents = ag.agents;
      renderHandoffs(handoffs);
      renderSessions(sessions);
      renderLeases(leases);
      renderPRs(prs);
      await renderLineage(sessions.items);
      const notices = [].concat(handoffs.notices, sessions.notices, leases.notices, prs.notices);
      lastRead.textContent = "Read " + new Date().toLocaleTimeString() + (notices.length ? " · " + notices.join("; ") : "");
      shownRoot = handoffs.lastSeenRoot;
      document.body.dataset.root = shownRoot;
      readPanes();
    } catch (e) {
      say(e.message, "error");
    } finally {
      loading = null;
      const next = again;
      again = false;
      if (next === "force" || (next && latestRoot !== shownRoot)) refresh(next === "force");
    }
  })();
  return loading;
}

function listen() {
  if (stream) stream.close();
  stream = new EventSource("/api/events?project=" + encodeURIComponent(project()) + "&token=" + encodeURIComponent(token));
  stream.addEventListener("change", (ev) => {
    try { latestRoot = JSON.parse(ev.data).root; } catch (e) { latestRoot = null; }
    if (latestRoot === null || latestRoot !== shownRoot) refresh();
  });
  stream.addEventListener("error", () => { lastRead.textContent = "Change stream lost; retrying…"; });
}

projectSelect.addEventListener("change", () => { say(""); paneLines.clear(); shownRoot = latestRoot = null; refresh(); listen(); });
showClaimed.addEventListener("change", () => { if (lastHandoffs) renderHandoffs(lastHandoffs); });
showEnded.addEventListener("change", () => { if (lastSessions) renderSessions(lastSessions); });
setInterval(readPanes, PANE_EVERY_MS);
refresh();
listen();
