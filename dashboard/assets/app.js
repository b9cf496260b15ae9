// Multiverse dashboard: plain DOM, no dependencies. Every value from the
// API is inserted as text, never as markup.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const main = document.getElementById("main");
let closeView = () => {};
let current = null; // the run shown: {runID, select(branchID)}
let info = {}; // /api/info

// withToken adds the token to a same-origin URL (images, event streams
// cannot send an Authorization header).
function withToken(url) {
  if (!token) return url;
  return url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token);
}

async function api(path, opts = {}) {
  const headers = Object.assign({}, opts.headers || {});
  if (token) headers.Authorization = "Bearer " + token;
  const resp = await fetch(path, Object.assign({}, opts, { headers }));
  if (!resp.ok && !(resp.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
    let msg = resp.status + " " + resp.statusText;
    try { msg = (await resp.json()).error || msg; } catch (_) { /* not JSON */ }
    throw new Error(msg);
  }
  return resp;
}
const getJSON = async (path) => (await api(path)).json();

// h builds an element: h("td", {class: "x"}, "text", child, ...).
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    // Through the CSSOM: the page's CSP refuses style attributes.
    else if (k === "style") el.style.cssText = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat()) {
    if (kid === undefined || kid === null || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

const short = (id) => (id ? "…" + id.slice(-8) : "");
const num = (x) => (Math.round(x * 1000) / 1000).toString();
const when = (t) => (t ? new Date(t).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "");
const dur = (ms) => (ms >= 1000 ? (ms / 1000).toFixed(1) + " s" : ms + " ms");
function announce(msg) { document.getElementById("announce").textContent = msg; }

function show(title, ...kids) {
  main.replaceChildren(h("h2", {}, title), ...kids);
  const full = title + " · Multiverse";
  if (document.title !== full) main.focus(); // a new view, not a refresh
  document.title = full;
}

function failed(err) {
  main.replaceChildren(h("h2", {}, "Error"), h("p", { class: "error", role: "alert" }, err.message));
}

// Routes: #/ runs, #/runs/ID, #/runs/ID/branches/BID, #/ledger, #/drift.
async function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (current && parts[0] === "runs" && parts[1] === current.runID) {
    return current.select(parts[3] || "").catch(failed);
  }
  closeView();
  closeView = () => {};
  current = null;
  try {
    if (parts[0] === "ledger") return await ledgerView();
    if (parts[0] && parts[0].startsWith("drift")) return await driftView();
    if (parts[0] === "runs" && parts[1]) return await runView(parts[1], parts[3] || "");
    return await runsView();
  } catch (err) {
    failed(err);
  }
}

// ---- runs ----

const OUTCOMES = ["committed", "existing", "recovered", "goal_reached", "explored", "no_boundary", "goal_failed", "aborted", "compensated", "interrupted", "failed", "running", "recorded"];

async function runsView() {
  const params = new URLSearchParams(location.hash.split("?")[1] || "");
  const outcome = params.get("outcome") || "", task = params.get("task") || "";
  const data = await getJSON("/api/runs" + (outcome ? "?outcome=" + encodeURIComponent(outcome) : ""));
  const filter = (key, value) => {
    const q = new URLSearchParams({ outcome, task });
    q.set(key, value);
    for (const [k, v] of [...q]) if (!v) q.delete(k);
    location.hash = "#/" + (q.toString() ? "?" + q.toString() : "");
  };
  const select = h("select", { id: "outcome", onchange: (e) => filter("outcome", e.target.value) },
    h("option", { value: "" }, "all outcomes"), OUTCOMES.map((o) => h("option", { value: o, selected: o === outcome }, o)));
  const tasks = [...new Set(data.runs.map((r) => r.task))].sort();
  const taskSelect = h("select", { id: "task", onchange: (e) => filter("task", e.target.value) },
    h("option", { value: "" }, "all tasks"), tasks.map((t) => h("option", { value: t, selected: t === task }, t)));
  const runs = data.runs.filter((r) => !task || r.task === task);
  const rows = runs.map((r) => h("tr", {},
    h("th", { scope: "row" }, h("a", { href: "#/runs/" + encodeURIComponent(r.run_id) }, h("code", {}, r.run_id))),
    h("td", {}, h("a", { href: "#/?task=" + encodeURIComponent(r.task) }, r.task)),
    h("td", { class: "outcome-" + r.outcome }, r.outcome),
    h("td", {}, when(r.started)),
    h("td", {}, dur(r.duration_ms)),
    h("td", {}, r.branches),
    h("td", {}, h("code", {}, short(r.winner))),
    h("td", {}, r.order_id || "")));
  const table = h("table", {},
    h("caption", {}, runs.length + (runs.length === 1 ? " run" : " runs") + (outcome ? " with outcome " + outcome : "") + (task ? " of task " + task : "")),
    h("thead", {}, h("tr", {}, ["Run", "Task", "Outcome", "Started", "Duration", "Branches", "Winner", "Order"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows));
  const submit = info.engine ? engineForm() : null;
  show("Runs", ...(submit ? [submit.form] : []), h("p", { class: "filters" }, h("label", { for: "outcome" }, "Outcome "), select, " ",
    h("label", { for: "task" }, "Task "), taskSelect), table);
  // The list follows the data dir: a run in progress every 2 s, new runs
  // every 10 s (a run started after the page loaded shows up).
  const running = data.runs.some((r) => r.outcome === "running");
  let timer;
  const poll = async () => {
    if (running) return route();
    try {
      if ((await getJSON("/api/runs")).runs.length !== data.runs.length) return route();
    } catch (_) { /* the next poll tries again */ }
    timer = setTimeout(poll, 10000);
  };
  timer = setTimeout(poll, running ? 2000 : 10000);
  closeView = () => { clearTimeout(timer); if (submit) submit.stop(); };
}

// engineForm submits a task file to the engine the dashboard was started
// with, follows the run while it waits in the engine's queue, and opens
// its live view once the data dir shows it (a run that fails before it
// starts, a bad task file say, says why here).
function engineForm() {
  let timer, stopped = false;
  const input = h("input", { id: "task-file", name: "task_file", required: true, size: 40, autocomplete: "off" });
  const button = h("button", { type: "submit" }, "Run");
  const status = h("p", { id: "engine-status", role: "status" });
  const say = (text, cls) => { status.textContent = text; status.className = cls || ""; };
  const follow = async (id) => {
    if (stopped) return;
    try {
      const rep = await getJSON("/api/engine/runs/" + encodeURIComponent(id));
      if (rep.state !== "queued") {
        const shown = await fetch(withToken("/api/runs/" + encodeURIComponent(id)));
        if (shown.ok) { location.hash = "#/runs/" + encodeURIComponent(id); return; }
      }
      if (rep.state === "failed" || rep.state === "completed") {
        say("Run " + id + " " + rep.state + " (exit " + rep.exit_code + ")" + (rep.error ? ": " + rep.error : ""), rep.state === "failed" ? "error" : "");
        return;
      }
      say("Run " + id + " " + rep.state + "…");
    } catch (err) {
      say("Run " + id + ": " + err.message, "error");
      return;
    }
    timer = setTimeout(() => follow(id), 500);
  };
  const form = h("form", { class: "engine", "aria-label": "Run a task on the engine", onsubmit: async (e) => {
    e.preventDefault();
    button.disabled = true;
    say("Submitting…");
    try {
      const resp = await api("/api/engine/runs", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ task_file: input.value.trim() }) });
      const rep = await resp.json();
      announce("Run " + rep.id + " submitted");
      await follow(rep.id);
    } catch (err) {
      say("Not submitted: " + err.message, "error");
    } finally {
      button.disabled = false;
    }
  } }, h("label", { for: "task-file" }, "Task file on the engine's machine "), input, " ", button, status);
  return { form, stop: () => { stopped = true; clearTimeout(timer); } };
}

// ---- one run ----

function heat(j) { return "hsl(" + Math.round(Math.max(0, Math.min(1, j)) * 120) + " 75% 80%)"; }

// shownAction is what a tree node says: its last action, or for a try
// of the winner's plan without some steps, which steps.
function shownAction(b) {
  if (b.removed && b.removed.length) return "without step" + (b.removed.length > 1 ? "s " : " ") + b.removed.join(", ");
  return b.action || "(root)";
}

function nodeLabel(b) {
  const parts = [shownAction(b)];
  parts.push(b.scored ? "J " + num(b.j) : "not scored");
  parts.push(b.status);
  if (b.rule) parts.push("rule " + b.rule);
  return parts.join(", ");
}

// reproduces links the run a rerun reproduces: by its id here, with the
// data dir it was read from (a rerun records itself in a data dir of its
// own: the link works where this dashboard serves that run too).
function reproduces(rp) {
  return h("span", {}, "a " + rp.mode + " rerun of ",
    h("a", { href: "#/runs/" + encodeURIComponent(rp.run_id) }, h("code", {}, rp.run_id)),
    rp.data_dir ? " in " + rp.data_dir : "");
}

async function runView(runID, branchID) {
  const state = { run: null, branches: new Map(), order: [], selected: branchID, pending: false };
  const facts = h("dl", { class: "facts" });
  const treeBox = h("div", { id: "tree" });
  const branchBox = h("section", { "aria-labelledby": "branch-title" }, h("h3", { id: "branch-title" }, "Branch"),
    h("p", {}, "Select a branch in the tree to see its steps."));
  const timelineBox = h("div", { class: "timeline" }, h("p", {}, "Loading…"));
  const frontierBox = h("div", { class: "frontier" });
  let timelineShown = false;
  const loadTimeline = async () => {
    if (timelineShown) return;
    timelineShown = true;
    try {
      timelineBox.replaceChildren(timelineView(await getJSON("/api/runs/" + encodeURIComponent(runID) + "/timeline"), runID));
    } catch (err) {
      timelineBox.replaceChildren(h("p", { class: "error" }, err.message));
    }
  };
  show("Run " + runID,
    h("p", {}, h("a", { href: "#/" }, "All runs")),
    facts,
    h("details", { class: "timeline-box", ontoggle: (e) => { if (e.target.open) loadTimeline(); } },
      h("summary", {}, "Timeline: the branches on each worker over time"), timelineBox),
    h("details", { class: "frontier-box", ontoggle: (e) => { if (e.target.open) frontierBox.replaceChildren(frontierView([...state.branches.values()])); } },
      h("summary", {}, "Frontier: branches by depth and wave"), frontierBox),
    h("div", { class: "layout" },
      h("section", { "aria-labelledby": "tree-title" }, h("h3", { id: "tree-title" }, "Branch tree"),
        h("p", { class: "legend", id: "legend" }, "Score J from 0 (red)", h("span", { class: "ramp", "aria-hidden": "true" }),
          "to 1 (green); grey: not scored yet; dashed border: pruned or failed, with its rule"),
        treeBox),
      branchBox));

  const renderFacts = () => {
    const r = state.run;
    facts.replaceChildren(...[["Task", r.task], ["Outcome", r.outcome], ["Started", when(r.started)], ["Duration", dur(r.duration_ms)],
      ["Branches", r.branches], ["Winner", short(r.winner)], ["Order", r.order_id || "none"], ["Events", r.events]]
      .concat(r.reproduces ? [["Reproduces", reproduces(r.reproduces)]] : [])
      .flatMap(([k, v]) => [h("dt", {}, k), h("dd", { class: k === "Outcome" ? "outcome-" + v : null }, v)]));
  };
  const renderTree = () => {
    state.pending = false;
    const kids = new Map();
    for (const id of state.order) {
      const b = state.branches.get(id);
      const p = b.parent && state.branches.has(b.parent) ? b.parent : "";
      if (!kids.has(p)) kids.set(p, []);
      kids.get(p).push(b);
    }
    const list = (parent, top) => {
      const items = (kids.get(parent) || []).map((b) => h("li", {},
        h("button", { type: "button", class: "node status-" + b.status + (b.scored ? "" : " unscored"),
          style: b.scored ? "background:" + heat(b.j) : null, "aria-pressed": b.id === state.selected ? "true" : "false",
          "aria-label": nodeLabel(b), "data-branch": b.id, onclick: () => { location.hash = "#/runs/" + runID + "/branches/" + b.id; } },
          h("span", { title: b.removed ? b.reason : null }, shownAction(b)),
          h("span", { class: "j" }, b.scored ? num(b.j) : "–"),
          b.status !== "explored" && b.status !== "open" ? h("span", { class: "badge" }, b.rule ? b.status + ": " + b.rule : b.status) : null),
        kids.has(b.id) ? list(b.id, false) : null));
      return h("ul", { class: top ? "tree" : null, "aria-label": top ? "Branches of run " + runID : null }, items);
    };
    treeBox.replaceChildren(list("", true));
  };
  const schedule = () => { if (!state.pending) { state.pending = true; requestAnimationFrame(renderTree); } };
  const upsert = (b) => {
    if (!state.branches.has(b.id)) state.order.push(b.id);
    state.branches.set(b.id, b);
  };

  // The stream sends the run as it is now, then changes until it ends.
  const es = new EventSource(withToken("/api/runs/" + encodeURIComponent(runID) + "/stream"));
  closeView = () => es.close();
  const ready = new Promise((resolve, reject) => {
    es.addEventListener("snapshot", (ev) => {
      const d = JSON.parse(ev.data);
      state.run = d.run;
      state.branches.clear();
      state.order = [];
      d.branches.forEach(upsert);
      renderFacts();
      renderTree();
      resolve();
    });
    es.addEventListener("error", (ev) => {
      if (!state.run) { es.close(); reject(new Error("cannot stream run " + runID + (ev.data ? ": " + ev.data : ""))); }
    });
  });
  es.addEventListener("failure", (ev) => {
    es.close();
    announce("The live stream stopped: " + JSON.parse(ev.data).error);
  });
  es.addEventListener("branch", (ev) => { upsert(JSON.parse(ev.data)); schedule(); });
  es.addEventListener("run", (ev) => { state.run = JSON.parse(ev.data); renderFacts(); });
  es.addEventListener("end", (ev) => {
    state.run = JSON.parse(ev.data);
    renderFacts();
    es.close();
    if (!["running", "recorded"].includes(state.run.outcome)) announce("Run ended: " + state.run.outcome);
  });
  await ready;
  current = {
    runID,
    select: async (bid) => {
      state.selected = bid;
      renderTree();
      if (bid) await branchView(branchBox, runID, bid);
    },
  };
  if (branchID) await branchView(branchBox, runID, branchID);
}

// ---- one branch ----

// shot shows a recorded screenshot, or, for a page the run did not
// screenshot (only failed, healed, boundary and goal pages are), a button
// that renders it by a strict replay of the branch (render: its URL).
function shot(digest, alt, render) {
  if (digest) return h("img", { src: withToken("/api/artifacts/" + digest), alt, loading: "lazy" });
  if (!render) return h("div", { class: "noshot" }, alt + ": no screenshot");
  const box = h("div", { class: "noshot" }, alt + ": not recorded ");
  const button = h("button", { type: "button", class: "action", "aria-label": "Render: " + alt, onclick: () => {
    button.disabled = true;
    button.textContent = "Rendering by strict replay…";
    const img = h("img", { src: withToken(render), alt });
    img.addEventListener("load", () => box.replaceWith(img), { once: true });
    img.addEventListener("error", () => { button.textContent = "Could not render it"; }, { once: true });
  } }, "Render it");
  box.append(button);
  return box;
}

function stepView(s, runID, branchID) {
  const render = (n) => n < 1 ? "" : "/api/runs/" + encodeURIComponent(runID) + "/branches/" + encodeURIComponent(branchID) + "/steps/" + n + "/screenshot";
  const flips = s.flips.length ? s.flips.map((f) => f.predicate + " → " + f.to).join(", ") : "none";
  const facts = [["Kind", s.kind], ["Result", s.status || "not executed"], ["Code", s.code || "none"], ["Strategy", s.strategy || "none"],
    ["Duration", dur(s.duration_ms)], ["Page", s.url ? s.url + (s.http_status ? " (" + s.http_status + ")" : "") : ""],
    ["J after", num(s.j)], ["Flips", flips], ["Credit", num(s.credit)], ["Executed by", short(s.branch_id)]];
  if (s.error) facts.push(["Error", s.error]);
  if (s.slow) facts.push(["Slow", s.slow]);
  if (s.redirected_from) facts.push(["Redirected from", s.redirected_from]);
  const console = (s.console || []).length
    ? h("details", { class: "console" }, h("summary", {}, "Console (" + s.console.length + ")"),
      h("ul", {}, ...s.console.map((c) => h("li", { class: "console-" + c.type }, c.type + ": " + c.text))))
    : "";
  const net = s.network || [];
  const network = net.length
    ? h("details", { class: "network" }, h("summary", {}, "Network (" + net.length + (net.some((r) => r.blocked) ? ", held: " + net.filter((r) => r.blocked).length : "") + ")"),
      h("table", {}, h("caption", { class: "visually-hidden" }, "Requests of step " + s.index),
        h("thead", {}, h("tr", {}, ["Method", "URL", "Type", "Status", "Time", "Size"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, net.map((r) => h("tr", { class: r.blocked ? "outcome-aborted" : (r.error || r.status >= 400 ? "outcome-failed" : "") },
          h("td", {}, r.method), h("td", { class: "mono url" }, r.body ? h("a", { href: withToken("/api/artifacts/" + r.body) }, r.url) : r.url),
          h("td", {}, r.type || ""), h("td", {}, r.blocked ? "held" : r.error ? r.error : r.status + (r.late ? " (late)" : "")),
          h("td", {}, r.duration_ms ? dur(r.duration_ms) : ""), h("td", {}, r.size || ""))))))
    : "";
  const snapshots = s.dom || s.ax
    ? h("div", { class: "snapshots" }, h("p", {}, "Snapshots after the step: ",
      s.dom ? h("a", { href: withToken("/api/artifacts/" + s.dom) }, "DOM") : "", s.dom && s.ax ? " · " : "",
      s.ax ? h("a", { href: withToken("/api/artifacts/" + s.ax) }, "accessibility tree") : ""),
      s.dom ? h("details", { class: "dom", ontoggle: (e) => {
        // The recorded DOM, rendered in a sandboxed frame: no script runs.
        if (e.target.open && !e.target.querySelector("iframe")) {
          e.target.append(h("iframe", { sandbox: "", title: "Recorded DOM after step " + s.index, src: withToken("/api/artifacts/" + s.dom + "?as=html") }));
        }
      } }, h("summary", {}, "Render the recorded DOM")) : "")
    : "";
  return h("article", { class: "step", "aria-labelledby": "step-" + s.index },
    h("h5", { id: "step-" + s.index }, "Step " + s.index + ": " + s.action),
    h("div", { class: "shots" },
      h("figure", {}, shot(s.before, "Page before step " + s.index, render(s.index - 1)), h("figcaption", {}, "Before")),
      h("figure", {}, shot(s.after, "Page after step " + s.index, render(s.index)), h("figcaption", {}, "After"))),
    h("dl", { class: "facts" }, facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])), console, network, snapshots);
}

async function branchView(box, runID, branchID) {
  const d = await getJSON("/api/runs/" + encodeURIComponent(runID) + "/branches/" + encodeURIComponent(branchID));
  const out = h("div", { class: "replay", "aria-live": "polite" });
  const button = h("button", { type: "button", class: "action", onclick: () => replay(runID, branchID, button, out) },
    "Replay this branch (strict)");
  box.replaceChildren(
    h("h3", { id: "branch-title" }, "Branch " + short(d.branch.id)),
    h("dl", { class: "facts" }, [["Id", d.branch.id], ["Status", d.branch.status + (d.branch.rule ? " (" + d.branch.rule + ")" : "")],
      ["Action", d.branch.action], ["Depth", d.branch.depth], ["J", d.branch.scored ? num(d.branch.j) : "not scored"]]
      .flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
    h("h4", {}, "Why it ended so"),
    h("pre", {}, d.explain.join("\n")),
    h("p", {}, button), out,
    h("details", {}, h("summary", {}, "Its events (" + d.events.length + ")"), h("pre", {}, d.events.join("\n"))),
    h("h4", {}, "Steps"),
    ...d.steps.map((s) => stepView(s, runID, branchID)));
}

// replay posts a strict replay and reads its event stream.
async function replay(runID, branchID, button, out) {
  button.disabled = true;
  const steps = h("ol", { "aria-label": "Replayed steps" });
  const status = h("p", { role: "status" }, "Starting replay…");
  out.replaceChildren(h("h4", {}, "Strict replay"), status, steps);
  try {
    const resp = await api("/api/runs/" + encodeURIComponent(runID) + "/branches/" + encodeURIComponent(branchID) + "/replay", { method: "POST" });
    await readEvents(resp, (kind, data) => {
      if (kind === "status") status.textContent = data.phase === "launching" ? "Launching Chromium…" : "Replaying " + data.steps + " steps…";
      if (kind === "step") steps.append(h("li", {}, (data.match ? (data.advisory ? "match (an ancestor's hashes differ): " : "match: ") : "DIVERGED: ") + data.action + " (dom " + (data.dom_match ? "=" : "≠") +
        ", ax " + (data.ax_match ? "=" : "≠") + ", net " + (data.net_match ? "=" : "≠") + ")"));
      if (kind === "report") showReport(out, status, data);
    });
  } catch (err) {
    status.textContent = "Replay failed: " + err.message;
    status.className = "error";
  } finally {
    button.disabled = false;
  }
}

function showReport(out, status, res) {
  const r = res.report;
  if (!r) { status.textContent = "Replay failed: " + res.error; status.className = "error"; return; }
  status.textContent = "Replay done: RSR " + num(r.rsr) + ", DVR " + num(r.dvr) + ", TTD " + (r.ttd || "none");
  status.className = r.rsr === 1 ? "verdict-ok" : "verdict-bad";
  out.append(h("dl", { class: "facts", "aria-label": "Replay result" },
    [["RSR", num(r.rsr)], ["DVR", num(r.dvr)], ["TTD", r.ttd ? "step " + r.ttd : "none"], ["Responses served", r.served],
      ["Unrecorded requests", (r.unrecorded || []).length], ["Guarded requests blocked", (r.blocked || []).length]]
      .flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
  if (r.notes && r.notes.length) out.append(h("h5", {}, "Notes"), h("ul", {}, r.notes.map((n) => h("li", {}, n))));
  if (r.diff) out.append(h("h5", {}, "Diff at the divergence"), h("pre", {}, r.diff));
}

// readEvents parses a text/event-stream response body.
async function readEvents(resp, onEvent) {
  const reader = resp.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let kind = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) kind = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (data) onEvent(kind, JSON.parse(data));
    }
  }
}

// frontierView is the search as a heatmap: a cell per depth and wave,
// coloured by the best J of its branches, with how many there were and
// how many were pruned or failed.
function frontierView(branches) {
  const cells = new Map();
  let maxWave = 0, maxDepth = 0;
  for (const b of branches) {
    if (!b.wave) continue;
    maxWave = Math.max(maxWave, b.wave);
    maxDepth = Math.max(maxDepth, b.depth);
    const k = b.depth + "/" + b.wave;
    const c = cells.get(k) || { n: 0, cut: 0, best: null };
    c.n++;
    if (b.status === "pruned" || b.status === "failed") c.cut++;
    if (b.scored && (c.best === null || b.j > c.best)) c.best = b.j;
    cells.set(k, c);
  }
  if (!maxWave) return h("p", {}, "This run's log does not record waves.");
  const waves = Array.from({ length: maxWave }, (_, i) => i + 1);
  return h("table", { class: "heat" },
    h("caption", {}, "Branches per depth (rows) and wave (columns); colour: the best J; the count of pruned or failed after the slash"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Depth"), waves.map((w) => h("th", { scope: "col" }, "W" + w)))),
    h("tbody", {}, Array.from({ length: maxDepth }, (_, i) => i + 1).map((d) => h("tr", {}, h("th", { scope: "row" }, d),
      waves.map((w) => {
        const c = cells.get(d + "/" + w);
        if (!c) return h("td", {}, "");
        return h("td", { style: c.best === null ? null : "background:" + heat(c.best), title: c.best === null ? "not scored" : "best J " + num(c.best) },
          c.n + (c.cut ? "/" + c.cut : ""));
      })))));
}

// timelineView draws a run's branches as bars on one lane per worker,
// placed by when they ran; each bar links to its branch.
function timelineView(tl, runID) {
  if (!tl.spans.length) return h("p", {}, "No branch ran yet.");
  const total = Math.max(tl.end_ms, 1);
  const lanes = (tl.workers.length ? tl.workers : [""]).map((wk) => {
    const lane = h("div", { class: "lane", role: "list", "aria-label": "Worker " + (wk || "unknown") });
    for (const sp of tl.spans.filter((x) => x.worker === wk || (!wk && !x.worker))) {
      const left = (100 * sp.start_ms) / total, width = Math.max((100 * (sp.end_ms - sp.start_ms)) / total, 0.4);
      const label = (sp.action || "(root)") + ", " + sp.status + ", " + dur(sp.start_ms) + " to " + dur(sp.end_ms) + ", " + sp.actions + " actions";
      lane.append(h("a", { role: "listitem", class: "bar status-" + sp.status, href: "#/runs/" + encodeURIComponent(runID) + "/branches/" + sp.branch_id,
        style: "left:" + left + "%;width:" + width + "%", title: label, "aria-label": label }));
    }
    return h("div", { class: "lane-row" }, h("span", { class: "lane-name mono" }, wk || "unknown"), lane);
  });
  // Each wave starts where its first branch started: a mark on every lane.
  const starts = new Map();
  for (const sp of tl.spans) if (sp.wave && (!starts.has(sp.wave) || sp.start_ms < starts.get(sp.wave))) starts.set(sp.wave, sp.start_ms);
  for (const row of lanes) {
    const lane = row.lastChild;
    for (const [w, ms] of starts) lane.append(h("span", { class: "wave-mark", style: "left:" + (100 * ms) / total + "%", title: "wave " + w, "aria-hidden": "true" }));
  }
  return h("div", {}, h("p", { class: "legend" }, tl.spans.length + " branches in " + starts.size + " waves over " + dur(tl.end_ms) + " on " + tl.workers.length +
    " workers; green: winner, red: failed, grey: pruned; a thin line marks where each wave began"), ...lanes);
}

// ---- ledger ----

async function ledgerView() {
  const d = await getJSON("/api/ledger");
  const v = d.verify;
  const verdict = v.ok
    ? h("p", { class: "verdict-ok", role: "status" }, "Verified: " + v.entries + (v.entries === 1 ? " entry" : " entries") + ", head transition " + v.head_seq +
      ", " + v.artifacts + " evidence artifacts present with their digests" + (v.key_missing ? " (no evidence key: sealed evidence checked by digest only)" : ""))
    : h("div", { role: "alert" }, h("p", { class: "verdict-bad" }, "Verification FAILED"), h("ul", {}, (v.problems || []).map((p) => h("li", {}, p))));
  const rows = d.entries.map((e) => h("tr", {},
    h("th", { scope: "row" }, h("code", {}, e.id)),
    h("td", { class: "outcome-" + e.state }, e.state),
    h("td", {}, e.order_id || ""),
    h("td", {}, e.attempts),
    h("td", {}, h("a", { href: "#/runs/" + encodeURIComponent(e.run_id) }, h("code", {}, short(e.run_id)))),
    h("td", {}, when(e.updated_at)),
    h("td", {}, h("ul", {}, Object.entries(e.artifacts || {}).sort().map(([name, dg]) =>
      // Only the sealed copy of sealed evidence is stored: the plain
      // one's digest is what the sealed copy decrypts to.
      // A sealed document is read through the evidence endpoint, which
      // decrypts it with the data dir's key and checks its digest.
      (e.artifacts[name + ".sealed"]
        ? h("li", {}, h("a", { href: withToken("/api/ledger/" + encodeURIComponent(e.id) + "/evidence/" + encodeURIComponent(name)) }, name), " (sealed)")
        : h("li", {}, h("a", { href: withToken("/api/artifacts/" + dg) }, name))))))));
  show("Commit ledger", verdict, h("table", {},
    h("caption", {}, d.entries.length + (d.entries.length === 1 ? " entry" : " entries")),
    h("thead", {}, h("tr", {}, ["Entry", "State", "Order", "Attempts", "Run", "Updated", "Evidence"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows)));
}

// ---- drift ----

const countsOf = (by) => Object.entries(by || {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => k + " " + n).join(", ");

async function driftView() {
  const task = new URLSearchParams(location.hash.split("?")[1] || "").get("task") || "";
  const d = await getJSON("/api/drift" + (task ? "?task=" + encodeURIComponent(task) : ""));
  const scope = task ? "task " + task : "every task";
  const intro = h("p", { role: "status" }, d.runs === 0 ? "No runs of " + scope + "."
    : d.runs + (d.runs === 1 ? " run" : " runs") + " of " + scope + ", " + when(d.from) + " to " + when(d.to) + ": " + d.steps + " steps on " + d.targets + " targets.");
  const table = (caption, cols, rows) => h("table", {}, h("caption", {}, caption),
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, rows));
  const healed = d.healed.map((t) => h("tr", {},
    h("th", { scope: "row" }, t.action), h("td", {}, h("code", {}, t.selector)), h("td", {}, t.healed_runs + " of " + t.runs),
    h("td", {}, countsOf(t.strategies)), h("td", {}, when(t.first_healed)), h("td", {}, when(t.last_healed)),
    h("td", {}, t.last_named ? when(t.last_named) : "never"),
    h("td", {}, (t.history || []).map((u) => h("span", { class: u.healed ? "outcome-failed" : "outcome-committed", title: u.run_id + " " + when(u.time) + " " + (u.strategy || "") },
      u.healed ? "H" : "·")))));
  const fragile = d.fragile.map((t) => h("tr", {}, h("th", { scope: "row" }, h("code", {}, t.selector)), h("td", {}, t.action),
    h("td", {}, Math.round(100 * t.fragility) + "%"), h("td", {}, t.runs)));
  const slower = d.slower.map((x) => h("tr", {}, h("th", { scope: "row" }, x.action), h("td", {}, h("code", {}, x.selector)),
    h("td", {}, dur(x.before_ms)), h("td", {}, dur(x.after_ms)), h("td", {}, num(x.ratio) + "×"), h("td", {}, x.runs)));
  show("Drift", intro,
    table("Targets the named selector no longer found (" + healed.length + ")", ["Step", "Named selector", "Healed runs", "Found by", "First healed", "Last healed", "Named selector last worked", "Runs (H healed)"], healed),
    table("Most fragile selectors (" + fragile.length + ")", ["Selector", "Step", "Healed", "Runs"], fragile),
    table("Steps that grew slower (" + slower.length + ")", ["Step", "Selector", "Before (median)", "After (median)", "Ratio", "Runs"], slower),
    ...((d.unread || []).length ? [h("ul", { role: "alert" }, d.unread.map((u) => h("li", {}, u)))] : []));
}

async function init() {
  try {
    info = await getJSON("/api/info");
    document.getElementById("source").textContent = info.mode === "bundle" ? "Bundle " + info.bundle : "Data dir " + info.data_dir;
  } catch (err) {
    failed(err);
    return;
  }
  window.addEventListener("hashchange", route);
  route();
}
init();
