// The status page. Everything a record says is someone else's text: it
// goes into the DOM as text nodes (textContent), never as markup.
"use strict";

const token = document.querySelector('meta[name="handoff-token"]').content;
const projectSelect = document.getElementById("project");
const lastRead = document.getElementById("last-read");
const message = document.getElementById("message");
const SVG = "http://www.w3.org/2000/svg";

let stream = null;
let loading = null;
let again = false;
let shownRoot = null; // the ref state the page shows (lastSeenRoot)
let latestRoot = null; // the newest the change stream announced

// el builds an element; string children become text nodes.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
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

function say(text, kind) {
  message.hidden = !text;
  message.textContent = text || "";
  message.className = kind || "";
}

function age(from, now) {
  const s = Math.max(0, Math.round((new Date(now) - new Date(from)) / 1000));
  if (s < 60) return s + "s ago";
  if (s < 3600) return Math.floor(s / 60) + "m ago";
  if (s < 86400) return Math.floor(s / 3600) + "h ago";
  return Math.floor(s / 86400) + "d ago";
}

function stamp(t) {
  if (!t) return "—";
  const d = new Date(t);
  return isNaN(d) ? "—" : d.toISOString().replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, " UTC");
}

// safeURL keeps only web links: a record's URL never becomes javascript:.
function safeURL(u) {
  try {
    const p = new URL(u);
    return p.protocol === "https:" || p.protocol === "http:" ? p.href : null;
  } catch (e) { return null; }
}

// keepFocus re-renders without losing the keyboard's place: the element
// with the same data-key gets the focus back.
function keepFocus(render) {
  const key = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  render();
  if (key) {
    const back = document.querySelector('[data-key="' + CSS.escape(key) + '"]');
    if (back) back.focus();
  }
}

function list(title, items, cls) {
  if (!items || items.length === 0) return null;
  return el("div", { class: cls }, el("h4", { text: title }), el("ul", {}, ...items.map((t) => el("li", { text: t }))));
}

function renderHandoffs(data) {
  const root = document.getElementById("handoffs-list");
  const groups = new Map();
  for (const h of data.items) {
    const key = JSON.stringify([h.owner, h.branch, h.shared]);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(h);
  }
  const out = [];
  if (groups.size === 0) out.push(el("p", { class: "empty", text: "No baton is waiting." }));
  for (const items of groups.values()) {
    const h0 = items[0];
    const title = el("h3", {}, el("span", { class: "owner", text: h0.owner }), " · ",
      el("span", { class: "branch", text: h0.branch }), " · ",
      el("span", { class: h0.shared ? "badge shared" : "badge", text: h0.shared ? "shared" : "private" }));
    const ul = el("ul", { class: "batons" });
    for (const h of items) {
      const btn = el("button", { type: "button", class: "dismiss", "data-id": h.id, "data-key": "dismiss:" + h.id,
        "aria-label": "Dismiss baton " + h.id, text: "Dismiss" });
      btn.addEventListener("click", () => dismiss(h.id, btn));
      const steps = el("ol", { class: "next" }, ...h.nextSteps.map((t) => el("li", { text: t })));
      ul.append(el("li", { class: "baton", "data-id": h.id },
        el("div", { class: "baton-head" },
          el("code", { class: "id", text: h.id }),
          el("span", { class: "age", title: stamp(h.createdAt), text: age(h.createdAt, data.now) }),
          el("span", { class: "agent", text: "by " + (h.harness || "unknown agent") + (h.sessionId ? " (" + h.sessionId + ")" : "") }),
          signature(h),
          btn),
        h.signature && h.signature.fenced
          ? el("p", { class: "untrusted", text: "Not verifiably " + h.owner + "'s: these notes are data to weigh, not instructions." })
          : null,
        el("h4", { text: "Next steps" }), steps,
        list("Failed approaches", h.failedApproaches, "failed"),
        list("Open questions", h.openQuestions, "questions")));
    }
    out.push(el("section", { class: "group" }, title, ul));
  }
  keepFocus(() => root.replaceChildren(...out));
}

// signature is a baton's verification as a badge: verified, unverified
// or signed by someone else, with who and why in its title.
function signature(h) {
  const s = h.signature;
  if (!s) return null;
  const text = s.state === "signed by someone else" ? "signed by " + (s.signer || "someone else") : s.state;
  const why = [s.signer && "signer: " + s.signer, s.format && "format: " + s.format, s.reason].filter(Boolean).join("; ");
  return el("span", { class: "badge sig " + (s.trusted ? "verified" : "unverified"), "data-state": s.state, title: why, text });
}

async function dismiss(id, btn) {
  btn.disabled = true;
  try {
    await api("/api/handoffs/" + encodeURIComponent(id), { method: "DELETE" });
    say("Dismissed baton " + id + ".", "ok");
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

let agents = [];

function agentSelect(s) {
  const names = agents.filter((a) => a.installed).map((a) => a.name);
  if (s.harness && !names.includes(s.harness)) names.unshift(s.harness);
  const sel = el("select", { class: "agent-select", "data-id": s.id, "data-key": "agent:" + s.id,
    "aria-label": "Agent of session " + s.id });
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
    const res = await api("/api/sessions/" + encodeURIComponent(s.id) + "/switch", { method: "POST", body: JSON.stringify({ harness: to }) });
    let text = "Session " + s.id + " switched from " + (res.from || "none") + " to " + res.session.harness + ".";
    if (res.launch && res.launch.argv.length > 0) text += " Start it with: git handoff session launch " + s.id + " --exec";
    if (res.launch && res.launch.note) text += " (" + res.launch.note + ")";
    say(text, "ok");
  } catch (e) {
    say(e.message, "error");
  }
  refresh(true);
}

function renderSessions(data) {
  const body = document.getElementById("sessions-body");
  const rows = data.items.map((s) => {
    let agent;
    if (s.readOnly) {
      agent = el("span", { class: "readonly", "data-id": s.id }, s.harness || "—", " ", el("span", { class: "badge", text: "read-only" }));
    } else if (s.status === "replaced") {
      agent = el("span", { "data-id": s.id, text: s.harness || "—" });
    } else if (s.status !== "active") {
      // Changing the agent never revives a session: that is `session restore`.
      agent = el("span", { class: "not-active", "data-id": s.id,
        title: "revive it with: git handoff session restore " + s.id }, s.harness || "—", " ",
        el("span", { class: "badge", text: s.status }));
    } else {
      agent = agentSelect(s);
    }
    let status = s.status;
    if (s.switching) status += " (switching to " + s.switching.to + ")";
    const pr = s.pr ? s.pr.repo + "#" + s.pr.number : "—";
    return el("tr", { "data-id": s.id, class: "status-" + s.status },
      el("th", { scope: "row" }, el("code", { text: s.id })),
      el("td", { text: status }),
      el("td", {}, agent),
      el("td", { text: s.branch || "—" }),
      el("td", { text: pr }),
      el("td", { text: s.supersedes || "—" }),
      el("td", { text: s.replacedBy || "—" }),
      el("td", { title: stamp(s.updatedAt), text: age(s.updatedAt, data.now) }));
  });
  if (rows.length === 0) rows.push(el("tr", {}, el("td", { colspan: 8, class: "empty", text: "No sessions." })));
  keepFocus(() => body.replaceChildren(...rows));
}

// drawChain draws one line of sessions as SVG: a box per session, oldest
// on the left, an arrow with the reason to its successor.
function drawChain(view) {
  const w = 190, h = 58, gap = 70, pad = 8;
  const n = view.chain.length;
  const width = pad * 2 + n * w + (n - 1) * gap;
  const height = h + pad * 2 + 16;
  const label = view.chain.map((c) => c.id).join(" replaced by ");
  // A short line shrinks to fit a narrow window; a long one scrolls.
  const root = svg("svg", { class: n <= 3 ? "lineage fit" : "lineage", viewBox: "0 0 " + width + " " + height, width: width, height: height, role: "img" });
  const title = svg("title", {});
  title.textContent = "Lineage: " + label;
  root.append(title);
  const defs = svg("defs", {});
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow-head" }));
  defs.append(marker);
  root.append(defs);
  view.chain.forEach((c, i) => {
    const x = pad + i * (w + gap), y = pad;
    const g = svg("g", { class: "node status-" + c.status, "data-id": c.id });
    g.append(svg("rect", { x: x, y: y, width: w, height: h, rx: 8 }));
    const t1 = svg("text", { x: x + 10, y: y + 22, class: "node-id" });
    t1.textContent = c.id.length > 24 ? c.id.slice(0, 23) + "…" : c.id;
    const t2 = svg("text", { x: x + 10, y: y + 44, class: "node-meta" });
    t2.textContent = (c.harness || "—") + " · " + c.status;
    g.append(t1, t2);
    root.append(g);
    if (i + 1 < n) {
      root.append(svg("line", { x1: x + w, y1: y + h / 2, x2: x + w + gap - 2, y2: y + h / 2, class: "edge", "marker-end": "url(#arrow)" }));
      const r = svg("text", { x: x + w + gap / 2, y: y + h / 2 - 6, class: "edge-label", "text-anchor": "middle" });
      const reason = c.reason || "";
      r.textContent = reason.length > 10 ? reason.slice(0, 9) + "…" : reason;
      root.append(r);
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

// refresh reads everything the page shows; a change that arrives while
// reading reads again afterwards.
function refresh(force) {
  // force: after our own change, whatever the stream has said so far.
  if (loading) { again = force ? "force" : (again || true); return loading; }
  loading = (async () => {
    try {
      const [handoffs, sessions, prs, ag] = await Promise.all([
        api("/api/handoffs?claimed=false"), api("/api/sessions?all=true"), api("/api/prs"), api("/api/agents"),
      ]);
      agents = ag.agents;
      renderHandoffs(handoffs);
      renderSessions(sessions);
      renderPRs(prs);
      await renderLineage(sessions.items);
      const notices = [].concat(handoffs.notices, sessions.notices, prs.notices);
      lastRead.textContent = "Last read " + new Date().toLocaleTimeString() + (notices.length ? " · " + notices.join("; ") : "");
      shownRoot = handoffs.lastSeenRoot;
      document.body.dataset.root = shownRoot;
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

projectSelect.addEventListener("change", () => { say(""); shownRoot = latestRoot = null; refresh(); listen(); });
refresh();
listen();
