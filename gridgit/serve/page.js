// gridgit serve, the core: reading the API, acting through it, forms that survive a redraw, links,
// loading the panels and keeping them current from the live stream (panels.js draws them, board.js the board).
// Everything from .grid/ is untrusted (agents write it): it only ever becomes text
// (textContent, text nodes), never markup; links are built from patterns the server gives.
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const show = (node, visible) => { node.hidden = !visible; };

// ---- times: clock times for the feed, ages ("3 min ago") recounted as time passes ------------

function clock(ts) {
  const when = new Date(ts);
  return isNaN(when) ? String(ts || "") : when.toLocaleTimeString([], { hour12: false });
}

function ago(ts) {
  const when = new Date(ts);
  if (!ts || isNaN(when)) return "never";
  const minutes = (Date.now() - when.getTime()) / 60000;
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${Math.floor(minutes)} min ago`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h ago`;
  return `${Math.floor(minutes / 1440)} d ago`;
}

// An element whose text is an age: recounted every 15 s by recount().
const age = (ts, attrs) => el("time", { ...(attrs || {}), datetime: ts || "", "data-ago": ts || "", title: ts ? String(ts) : null, text: ago(ts) });

function recount() {
  for (const node of document.querySelectorAll("[data-ago]")) node.textContent = ago(node.dataset.ago);
}

// ---- the session: the token from the URL serve printed, who acts -----------------------------

const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("gridgit-token") || "";
if (params.get("token")) sessionStorage.setItem("gridgit-token", params.get("token"));

const state = {
  session: { actor: null, can_act: false }, repo: null, agents: [], completed: [], agentsAt: Date.now(),
  warningMinutes: 5, staleMinutes: 10, seen: new Set(), learningsSeen: false, status: {},
};

// The data of an answer in the --json envelope, or its one-line error (LABEL names the request in others).
async function request(path, label, options) {
  const headers = { Accept: "application/json", "X-Gridgit-Token": token, ...((options || {}).headers || {}) };
  const response = await fetch(path, { cache: "no-store", ...(options || {}), headers });
  let answer;
  try {
    answer = await response.json();
  } catch (err) {
    throw new Error(`${label}: ${response.status} ${response.statusText}`);
  }
  if (!answer.ok) throw new Error(answer.error ? answer.error.message : `${label}: ${response.status}`);
  return answer.data;
}

const api = (path) => request(path, path);

// One action: a POST with a JSON body and the token; its one-line answer, or its one-line error.
const act = (name, body) => request(`/api/act/${name}`, name,
  { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });

function toast(text, kind) {
  const node = el("div", { class: `toast ${kind || ""}`, role: kind === "bad" ? "alert" : null, text });
  $("toasts").prepend(node);
  while ($("toasts").children.length > 5) $("toasts").lastElementChild.remove();
  setTimeout(() => node.remove(), kind === "bad" ? 12000 : 6000);
  return node;
}

// Run an action from a control: the control waits, the answer (or the error) shows as a toast,
// the panels it touches are read again. True when it was done.
async function run(name, body, control, panels) {
  if (control) control.disabled = true;
  try {
    const data = await act(name, body);
    toast(data.message, "ok");
    document.body.dataset.lastAction = `${name}: ok`;
    await Promise.all((panels || []).map(refresh));
    return true;
  } catch (err) {
    toast(err.message, "bad");
    document.body.dataset.lastAction = `${name}: ${err.message}`;
    return false;
  } finally {
    if (control) control.disabled = false;
  }
}

// A small form under a row (an answer, a note): it survives the row being drawn again when an event
// arrives, with what was typed and the focus, so a person typing is never interrupted.
const forms = new Map(); // key -> what its field holds
let focusedForm = null;

function buildForm(item, key, spec) {
  const box = el("form", { class: `inline acts ${spec.cls}` });
  const input = spec.multiline
    ? el("textarea", { rows: 2, placeholder: spec.placeholder, "aria-label": spec.placeholder })
    : el("input", { type: "text", placeholder: spec.placeholder, "aria-label": spec.placeholder });
  input.value = forms.get(key) || "";
  input.addEventListener("input", () => forms.set(key, input.value));
  input.addEventListener("focus", () => { focusedForm = key; });
  // A field taken out of the page by a redraw blurs too: only a field still in it lost the focus to the person.
  input.addEventListener("blur", () => setTimeout(() => { if (input.isConnected && focusedForm === key) focusedForm = null; }));
  const button = el("button", { type: "submit", class: "primary", text: spec.submitText });
  box.append(input, button);
  box.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (await spec.submit(input.value, button)) {
      forms.delete(key);
      box.remove();
    }
  });
  item.append(box);
  return input;
}

// The button that opens (or closes) SPEC's form under ITEM; a form open before ITEM was drawn again is back.
function formButton(item, key, spec) {
  const button = el("button", { type: "button", class: spec.buttonClass, text: spec.buttonText, onclick: () => {
    const open = item.querySelector(`form.${spec.cls}`);
    if (open) {
      open.remove();
      forms.delete(key);
      return;
    }
    forms.set(key, "");
    buildForm(item, key, spec).focus();
  } });
  if (forms.has(key)) {
    queueMicrotask(() => {
      const input = buildForm(item, key, spec);
      if (focusedForm === key) {
        input.focus();
        input.setSelectionRange(input.value.length, input.value.length);
      }
    });
  }
  return button;
}

// ---- links: commits and cited files on the repository's web host, else this server's git show --

function safeHref(href) {
  return /^https:\/\//.test(href) || /^\/show\?/.test(href) ? href : null;
}

function commitLink(sha) {
  const repo = state.repo;
  const href = repo && /^[0-9a-f]{4,40}$/i.test(sha) ? safeHref(repo.commit.replace("{sha}", encodeURIComponent(sha))) : null;
  const code = el("code", { title: sha, text: String(sha).slice(0, 7) });
  return href ? el("a", { href, target: "_blank", rel: "noopener noreferrer", class: "commit" }, code) : code;
}

function fileLink(path) {
  const repo = state.repo;
  let href = null;
  if (repo && repo.kind === "local") href = `/show?path=${encodeURIComponent(path)}`;
  else if (repo && repo.head) {
    const encoded = String(path).split("/").map(encodeURIComponent).join("/");
    href = safeHref(repo.file.replace("{rev}", repo.head).replace("{path}", encoded));
  }
  const code = el("code", { text: path });
  return href ? el("a", { href, target: "_blank", rel: "noopener noreferrer", class: "file" }, code) : code;
}

// ---- loading, and reloading what an event touched -----------------------------------------------

const LOADERS = {
  status: async () => renderStatus(await api("/api/status")),
  agents: async () => {
    const data = await api("/api/agents");
    Object.assign(state, { agents: data.agents, completed: data.completed || [], agentsAt: Date.now(), warningMinutes: data.warning_minutes, staleMinutes: data.stale_minutes });
    renderAgents();
  },
  blocks: async () => renderBoard(await api("/api/blocks")),
  entries: async () => renderEntries(await api(`/api/entries?${entriesQuery()}`)),
  phases: async () => fillSelect($("filter-phase"), (await api("/api/phases")).map((p) => p.id), "current"),
  conflicts: async () => renderConflicts(await api("/api/conflicts")),
  learnings: async () => renderLearnings(await api("/api/learnings")),
  messages: async () => renderMessages(await api("/api/messages")),
  mine: async () => {
    if (state.session.actor) renderMine(await api(`/api/messages?agent=${encodeURIComponent(state.session.actor)}`));
  },
  search: runSearch,
  feed: async () => {
    for (const event of await api("/api/events?limit=50")) addEvent(event, false);
  },
};
const ERRORS = { status: "status-error", agents: "agents-error", blocks: "work-error", entries: "entries-error",
  phases: "entries-error", conflicts: "conflicts-error", learnings: "learnings-error", messages: "messages-error",
  mine: "messages-error", feed: "status-error", search: "search-error" };

// One request per panel at a time; events arriving meanwhile ask for one more read after it.
const running = {};
const pending = {};
function refresh(name) {
  if (running[name]) {
    pending[name] = true;
    return running[name];
  }
  running[name] = (async () => {
    const box = $(ERRORS[name]);
    try {
      await LOADERS[name]();
      if (box.dataset.from === name) show(box, false);
    } catch (err) {
      box.textContent = `${name}: ${err.message}`;
      box.dataset.from = name;
      show(box, true);
    } finally {
      running[name] = null;
      if (pending[name]) {
        pending[name] = false;
        refresh(name);
      }
    }
  })();
  return running[name];
}

const refreshAll = () => Promise.all(Object.keys(LOADERS).map(refresh));

const PHASE = ["status", "agents", "blocks", "entries", "phases", "learnings", "search"];
const BLOCKS = ["blocks", "status", "agents"];
const AFFECTS = {
  entry_written: ["entries", "agents", "status", "search"], entry_merged: ["entries", "agents", "status", "search"],
  entry_resolved: ["entries", "status"], handoff_posted: ["entries"], scratchpad_archived: ["entries", "status", "phases"],
  scratchpad_reindexed: ["entries"], heartbeat: ["agents"],
  state_updated: ["status", "agents", "blocks"], blocker_added: ["status"],
  phase_changed: PHASE, phase_started: PHASE, phase_completed: PHASE, phase_archived: PHASE,
  phase_approval_requested: ["status", "blocks"],
  agent_spawned: ["agents", "status"], agent_complete: ["agents", "status"], agent_stale: ["agents", "status"],
  file_modified: ["agents"], files_modified_bulk: ["agents"],
  write_conflict: ["conflicts", "status", "agents"], conflict_resolved: ["conflicts", "status"],
  claim_added: ["conflicts", "agents"], claim_released: ["conflicts", "agents"],
  learning_extracted: ["learnings", "search"], commit_recorded: ["entries", "status"], memory_updated: ["search"],
  message_sent: ["messages", "mine"], message_acked: ["messages", "mine"],
  block_planned: BLOCKS, block_taken: BLOCKS, block_started: BLOCKS, block_completed: BLOCKS, block_released: BLOCKS,
  block_reoffered: BLOCKS, block_take_lost: BLOCKS, block_approved: BLOCKS, block_assigned: BLOCKS,
  budget_added: ["status"], debug_started: ["status"], debug_closed: ["status"],
};

function stamp() {
  $("updated").textContent = `updated ${new Date().toLocaleTimeString([], { hour12: false })}`;
}

function connect() {
  const live = $("live");
  const stream = new EventSource("/api/stream");
  stream.onopen = () => {
    live.textContent = "live";
    live.className = "live on";
    // The stream starts now: read everything once more, so nothing written before it is missed
    // (a read still running is followed by one more; after a reconnect, this is what happened meanwhile).
    refreshAll().then(stamp);
  };
  stream.onerror = () => {
    live.textContent = "reconnecting";
    live.className = "live off";
  };
  stream.onmessage = (message) => {
    const event = JSON.parse(message.data);
    addEvent(event, true);
    notify(event);
    const names = AFFECTS[event.type] || ["status", "agents"];
    Promise.all(names.map(refresh)).then(stamp);
  };
  stream.addEventListener("resync", () => refreshAll().then(stamp));
}

async function startSession() {
  try {
    state.session = await api("/api/session");
  } catch (err) {
    state.session = { actor: null, can_act: false };
  }
  try {
    state.repo = await api("/api/repo");
  } catch (err) {
    state.repo = null;
  }
  const can = Boolean(state.session.can_act);
  document.body.dataset.canAct = String(can);
  $("mode").disabled = !can;
  $("actor").textContent = can ? `acting as ${state.session.actor}` : state.session.read_only ? "read-only" : "read-only: open the URL serve printed, with its token";
  $("footer-mode").textContent = can ? `gridgit serve · Master Control: ${state.session.actor}` : "gridgit serve · read-only";
  show($("notify"), can && "Notification" in window && Notification.permission === "default");
}
