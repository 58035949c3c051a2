// gridgit serve, the panels: the header, open work, cost, agents, entries, search, conflicts and claims,
// messages, learnings, the live feed and its notifications; each drawn from what the API read, agents'
// text only ever as text, and the controls that act on what they show.

// ---- the header: mission, mode, phase, what waits for approval, the taken blocks ------------

function renderStatus(data) {
  state.status = data;
  const mission = data.mission || "gridgit";
  $("mission").textContent = mission;
  document.title = `${mission} · gridgit`;
  $("mission-status").textContent = data.status || "";
  if (document.activeElement !== $("mode")) $("mode").value = data.mode || "autopilot";
  const pos = data.position || {};
  const done = (data.phases_completed || []).length;
  const total = data.phases_total || 0;
  $("phase-line").textContent = `Phase ${pos.phase || "-"}/${total || "-"}: ${pos.phase_id || "-"} ${pos.phase_name || ""}`.trim();
  $("phase-progress").max = Math.max(total, 1);
  $("phase-progress").value = done;
  $("phase-count").textContent = `${done} of ${total} phases done`;
  $("mission-percent").textContent = `${Number(data.progress || 0)}%`;
  $("complete-phase").dataset.phase = pos.phase_id || "";
  show($("complete-phase"), Boolean(pos.phase_id) && !(data.phases_completed || []).includes(pos.phase_id));
  const parts = [];
  if (pos.thread) parts.push(`Thread ${pos.thread}/${pos.thread_total || "-"}`);
  if (data.last_commit) parts.push(`Last commit ${String(data.last_commit).slice(0, 10)}`);
  $("position").textContent = parts.join(" · ");

  const open = $("open");
  open.replaceChildren(...(data.open || []).map(renderOpenItem));
  $("open-count").textContent = String((data.open || []).length);
  if (!open.children.length) open.append(el("li", { class: "empty", text: "None open." }));

  const recent = $("conflicts-recent");
  recent.replaceChildren(...(data.conflicts || []).map((event) => {
    const p = event.payload || {};
    const others = (p.conflicting_agents || []).join(", ") || "?";
    return el("li", {}, age(event.timestamp), " ", el("code", { text: p.path || "?" }), ` ${p.agent || "?"} vs ${others}`);
  }));
  $("conflicts-recent-count").textContent = String((data.conflicts || []).length);
  if (!recent.children.length) recent.append(el("li", { class: "empty", text: "None in the last hour." }));
  renderCost(data);
}

// An open item of /api/status, with what Master Control does about it.
function renderOpenItem(item) {
  const phase = item.source && item.source !== "STATE" ? item.source.split(/[# ]/)[0] : null;
  const ref = item.uid || item.id;
  const li = el("li", { "data-open": ref || "" },
    el("span", { class: `pill cat-${item.kind}`, text: item.kind }), " ",
    el("span", { class: "muted", text: item.source }), " ",
    el("span", { text: item.text }), " ",
    item.agent ? el("span", { class: "muted", text: `(${item.agent})` }) : null,
    item.timestamp ? el("span", {}, " ", age(item.timestamp)) : null);
  if (!ref) return li;
  const body = (extra) => ({ entry: String(ref), ...(phase ? { phase } : {}), ...extra });
  const buttons = el("div", { class: "actions acts" });
  if (item.kind === "question") {
    buttons.append(formButton(li, `answer:${ref}`, { cls: "answer-form", buttonClass: "answer", buttonText: "Answer",
      submitText: "Send answer", placeholder: "Your answer", multiline: true,
      submit: (text, button) => run("answer", body({ answer: text }), button, ["status", "entries"]) }));
  }
  buttons.append(formButton(li, `resolve:${ref}`, { cls: "resolve-form", buttonClass: "resolve", buttonText: "Resolve",
    submitText: "Resolve", placeholder: "A note (optional)", multiline: false,
    submit: (text, button) => run("resolve", body({ note: text }), button, ["status", "entries"]) }));
  li.append(buttons);
  return li;
}

function renderCost(data) {
  const cost = data.budget;
  const money = (usd) => `$${Number(usd || 0).toFixed(4)}`;
  $("cost").textContent = !cost ? "-" : `${money(cost.total_usd)}`
    + (cost.limit_usd ? ` of $${Number(cost.limit_usd).toFixed(2)} (${cost.percent}%)` : " (no limit set)")
    + ` · ${cost.messages || 0} model replies counted`;
  $("cost").className = cost && cost.warning ? "cost error" : "cost";
  if (cost && cost.warning) $("cost").textContent += ` · ${cost.warning}`;
  const sessions = data.debug || [];
  $("debug").replaceChildren(...sessions.map((session) => el("li", {},
    el("span", { class: `pill debug-${session.status}`, text: session.status }), " ",
    el("span", { text: session.title || "" }), " ",
    el("span", { class: "muted", text: `${session.session_id} (${session.agent || "?"})` }))));
  $("debug-count").textContent = String(sessions.filter((session) => session.status === "open").length) + " open";
  if (!sessions.length) $("debug").append(el("li", { class: "empty", text: "None." }));
  $("work-error").textContent = data.work_error || "";
  show($("work-error"), Boolean(data.work_error));
}

// ---- agents: current ones first, finished ones folded away ------------------------------------

function level(agent, minutes) {
  if (agent.warning_level === "n/a") return "n/a";
  if (minutes === null || minutes === undefined) return "stale";
  if (minutes > state.staleMinutes) return "stale";
  if (minutes > state.warningMinutes) return "warning";
  return "ok";
}

function renderAgents() {
  const elapsed = (Date.now() - state.agentsAt) / 60000;
  let stale = 0;
  const rows = state.agents.map((agent) => {
    const minutes = agent.minutes_since === null || agent.minutes_since === undefined ? null : agent.minutes_since + elapsed;
    return { agent, minutes, lvl: level(agent, minutes) };
  });
  // Current first: registered and beating, then the ones only seen, then the stale.
  const rank = (row) => (row.lvl === "stale" ? 2 : row.agent.registered ? 0 : 1);
  rows.sort((a, b) => rank(a) - rank(b));
  $("agents").replaceChildren(...rows.map(({ agent, minutes, lvl }) => {
    if (lvl === "stale") stale += 1;
    const progress = agent.progress === null || agent.progress === undefined ? null : Number(agent.progress);
    const doing = agent.action || agent.task || "-";
    const li = el("li", { class: lvl === "stale" ? "stale" : null, "data-agent": agent.id },
      el("div", {}, el("span", { class: "agent-id", text: agent.id }), " ",
        el("span", { class: "pill", text: agent.registered ? agent.type : `${agent.type}, seen` })),
      el("div", { class: "beat" },
        el("span", { class: `pill level-${lvl.replace("/", "")}`, text: lvl === "stale" ? "STALE" : lvl }), " ",
        el("span", { class: "muted", text: lvl === "n/a" ? "" : minutes === null ? "never" : ago(new Date(Date.now() - minutes * 60000)) })),
      el("div", { class: "doing", title: [agent.action, agent.task].filter(Boolean).join(" — ") || null, text: doing }),
      el("div", { class: "agent-meta" },
        agent.block ? el("span", { class: "pill", text: `block ${agent.block}` }) : null,
        agent.thread ? el("span", { text: agent.thread }) : null,
        progress === null ? null : el("span", {}, el("progress", { max: 100, value: progress }), ` ${progress}%`)));
    if (agent.registered) {
      li.lastElementChild.append(formButton(li, `done:${agent.id}`, { cls: "done-form", buttonClass: "acts done-agent",
        buttonText: "Mark done", submitText: "Done", placeholder: "What it did (summary)", multiline: false,
        submit: (text, button) => run("finish_agent", { agent: agent.id, summary: text || null }, button, ["agents", "status"]) }));
    }
    dropTarget(li, agent.id);
    return li;
  }));
  $("agents-done").replaceChildren(...state.completed.map((agent) => el("li", { class: "done", "data-agent": agent.id },
    el("div", {}, el("span", { class: "agent-id", text: agent.id }), " ", el("span", { class: "pill", text: "done" })),
    el("div", { class: "beat" }, agent.completed_at ? age(agent.completed_at) : ""),
    el("div", { class: "doing", title: agent.summary || null, text: agent.summary || agent.task || "-" }),
    el("div", { class: "agent-meta", text: agent.result || "" }))));
  const done = state.completed.length;
  $("agents-done-count").textContent = String(done);
  show($("agents-done-box"), done > 0);
  $("agents-count").textContent = `${state.agents.length}${stale ? `, ${stale} stale` : ""}${done ? `, ${done} done` : ""}`;
  show($("agents-empty"), !state.agents.length && !done);
  $("compose-targets").replaceChildren(...["@all", ...state.agents.map((a) => a.id)].map((id) => el("option", { value: id })));
}

// ---- entries ------------------------------------------------------------------------------------

const FILTERS = ["phase", "category", "agent", "topic", "relevance"];

function entriesQuery() {
  const query = new URLSearchParams();
  for (const name of FILTERS) {
    const value = $(`filter-${name}`).value;
    if (value) query.set(name, value);
  }
  if ($("filter-archived").checked) query.set("archived", "1");
  return query.toString();
}

function fillSelect(select, values, label) {
  const chosen = select.value;
  const options = [el("option", { value: "", text: label })];
  const all = chosen && !values.includes(chosen) ? [chosen, ...values] : values;
  for (const value of all) options.push(el("option", { value, text: value }));
  select.replaceChildren(...options);
  select.value = chosen;
}

function renderEntry(entry, phase) {
  const classes = ["entry", `rel-border-${entry.relevance}`];
  if (entry.open) classes.push("open");
  const node = el("article", { class: classes.join(" "), "data-entry": entry.id, "data-uid": entry.uid },
    el("div", { class: "entry-head" },
      el("span", { class: "muted", text: entry.archived ? `archive #${entry.id}` : `#${entry.id}` }),
      entry.open ? el("span", { class: "pill open-mark", text: "open" }) : null,
      el("span", { class: `pill cat-${entry.category}`, text: entry.category }),
      el("span", { class: `pill rel-${entry.relevance}`, text: entry.relevance }),
      el("code", { text: entry.topic }),
      el("span", { text: entry.agent_id }),
      (entry.contributors || []).length ? el("span", { class: "muted", text: `+ ${entry.contributors.join(", ")}` }) : null,
      entry.block_id ? el("span", { class: "muted", text: `block ${entry.block_id}` }) : null,
      age(entry.timestamp)),
    entry.title ? el("div", { class: "entry-title", text: entry.title }) : null,
    (entry.tags || []).length ? el("div", { class: "tags", text: entry.tags.map((t) => `#${t}`).join(" ") }) : null,
    el("pre", { class: "content", text: entry.content }),
    (entry.commits || []).length ? el("div", { class: "commits" }, "commits", ...entry.commits.map(commitLink)) : null,
    (entry.files || []).length ? el("div", { class: "commits" }, "cites", ...entry.files.map(fileLink)) : null);
  if (entry.category !== "heartbeat" && entry.uid) {
    node.append(el("div", { class: "actions acts" }, el("button", { type: "button", class: "promote", text: "Promote to learnings",
      onclick: (event) => run("promote", { entry: entry.uid, phase }, event.currentTarget, ["learnings"]) })));
  }
  return node;
}

function renderEntries(data) {
  fillSelect($("filter-category"), data.facets.categories, "all");
  fillSelect($("filter-agent"), data.facets.agents, "all");
  fillSelect($("filter-topic"), data.facets.topics, "all");
  fillSelect($("filter-relevance"), data.facets.relevances, "any");
  // Heartbeats are what the agents panel shows; among the entries they are noise unless asked for.
  const beats = $("filter-heartbeats").checked || $("filter-category").value === "heartbeat";
  const entries = beats ? data.entries : data.entries.filter((e) => e.category !== "heartbeat");
  $("entries").replaceChildren(...entries.map((e) => renderEntry(e, data.phase_id)));
  const shown = entries.length;
  const hidden = data.entries.length - shown;
  $("entries-count").textContent = `${data.phase_id}${data.archived ? " archive" : ""}: ${shown === data.total ? shown : `${shown} of ${data.total}`}${hidden ? ` (${hidden} heartbeats hidden)` : ""}`;
  show($("entries-empty"), !shown);
}

// ---- search -------------------------------------------------------------------------------------

// The snippet marks matching words with [brackets]: they become <mark> elements holding text.
function marked(snippet) {
  const parts = String(snippet || "").split(/\[([^\]]*)\]/);
  return parts.map((part, i) => (i % 2 ? el("mark", { text: part }) : document.createTextNode(part)));
}

function renderHit(hit) {
  return el("article", { class: "entry hit", "data-hit": hit.id || hit.path },
    el("div", { class: "entry-head" },
      el("span", { class: "pill", text: hit.kind }),
      el("span", { text: hit.where }),
      hit.category ? el("span", { class: `pill cat-${hit.category}`, text: hit.category }) : null,
      hit.topic ? el("code", { text: hit.topic }) : null,
      hit.agent ? el("span", { text: hit.agent }) : null,
      hit.timestamp ? age(hit.timestamp) : null),
    hit.title ? el("div", { class: "entry-title", text: hit.title }) : null,
    el("pre", { class: "content" }, ...marked(hit.snippet)),
    (hit.files || []).length ? el("div", { class: "tags" }, "cites ", ...hit.files.map(fileLink)) : null);
}

function searchQuery() {
  const query = new URLSearchParams();
  const q = $("search-q").value.trim();
  const file = $("search-file").value.trim();
  if (q) query.set("q", q);
  if (file) query.set("file", file);
  return query.toString();
}

async function runSearch() {
  const query = searchQuery();
  if (!query) {
    $("search-results").replaceChildren();
    $("search-count").textContent = "";
    return;
  }
  const data = await api(`/api/search?${query}&limit=20`);
  $("search-results").replaceChildren(...data.hits.map(renderHit));
  $("search-count").textContent = `${data.hits.length}${data.more ? "+" : ""} found`;
  if (!data.hits.length) $("search-results").append(el("p", { class: "empty", text: "Nothing found." }));
}

// ---- conflicts and claims, messages, learnings --------------------------------------------------

function renderConflicts(data) {
  const open = $("conflicts-open");
  open.replaceChildren(...data.open.map((c) => {
    const li = el("li", { "data-conflict": c.path }, el("code", { text: c.path }), ` ${(c.agents || []).join(", ")}`,
      el("div", { class: "muted" }, "since ", age(c.first_detected), ", last ", age(c.last_detected)));
    li.append(el("div", { class: "actions acts" }, formButton(li, `conflict:${c.path}`, { cls: "conflict-form",
      buttonClass: "resolve-conflict", buttonText: "Resolve", submitText: "Close conflict",
      placeholder: "How it was settled (optional)", multiline: false,
      submit: (text, button) => run("resolve_conflicts", { paths: [c.path], note: text }, button, ["conflicts", "status"]) })));
    return li;
  }));
  $("conflicts-open-count").textContent = String(data.open.length);
  if (!open.children.length) open.append(el("li", { class: "empty", text: "None open." }));
  const claims = $("claims");
  claims.replaceChildren(...data.claims.map((c) => el("li", { "data-claim": c.id },
    el("code", { text: c.pattern }), ` ${c.agent}`,
    c.exclusive ? el("span", { class: "pill level-warning", text: "exclusive" }) : null,
    el("div", { class: "muted", text: `until ${clock(c.expires_at)}${c.reason ? ` · ${c.reason}` : ""}` }),
    el("div", { class: "actions acts" }, el("button", { type: "button", class: "release-claim", text: "Release",
      onclick: (event) => run("release_claims", { holder: c.agent, patterns: [c.pattern] }, event.currentTarget, ["conflicts"]) })))));
  $("claims-count").textContent = String(data.claims.length);
  if (!claims.children.length) claims.append(el("li", { class: "empty", text: "No live claims." }));
}

function renderMessage(m, mine) {
  const acked = Object.keys(m.acks || {});
  return el("li", { "data-message": m.id },
    age(m.sent_at), " ",
    el("span", { text: `${m.from} → ${m.to}` }), " ",
    m.thread !== m.id ? el("span", { class: "muted", text: `thread ${m.thread}` }) : null,
    el("pre", { class: "content", text: m.content }),
    mine
      ? el("div", { class: "actions acts" },
        el("button", { type: "button", class: "ack", text: "Acknowledge",
          onclick: (event) => run("ack", { message: m.id }, event.currentTarget, ["messages", "mine"]) }),
        el("button", { type: "button", text: "Reply", onclick: () => { $("compose-to").value = m.from; $("compose-content").focus(); } }))
      : el("div", { class: "muted", text: acked.length ? `acknowledged by ${acked.join(", ")}` : "not acknowledged yet" }));
}

function renderMessages(data) {
  const list = $("messages");
  list.replaceChildren(...data.messages.map((m) => renderMessage(m, false)));
  $("messages-count").textContent = data.messages.length === data.total ? String(data.total) : `${data.messages.length} of ${data.total}`;
  if (!list.children.length) list.append(el("li", { class: "empty", text: "No messages." }));
}

function renderMine(data) {
  const list = $("mine");
  list.replaceChildren(...data.messages.map((m) => renderMessage(m, true)));
  $("mine-count").textContent = String(data.total);
  if (!list.children.length) list.append(el("li", { class: "empty", text: "Nothing waits for you." }));
}

function renderLearnings(data) {
  const wasOpen = new Set([...$("learnings").querySelectorAll("details[open]")].map((d) => d.dataset.section));
  let count = 0;
  $("learnings").replaceChildren(...data.sections.map((section) => {
    count += section.learnings.length;
    const details = el("details", { "data-section": section.name },
      el("summary", { text: `${section.name.replace(/_/g, " ")} (${section.learnings.length})` }),
      ...section.learnings.map((l) => el("div", { class: "learning" },
        el("div", { class: "entry-title", text: l.title }),
        l.content && l.content !== l.title ? el("pre", { text: l.content }) : null,
        l.agent_id || l.phase_id ? el("div", { class: "muted", text: [l.agent_id, l.phase_id, l.promoted_by ? `promoted by ${l.promoted_by}` : null].filter(Boolean).join(" · ") }) : null)));
    details.open = wasOpen.has(section.name) || (!state.learningsSeen && section.learnings.length > 0);
    return details;
  }));
  state.learningsSeen = true;
  $("learnings-count").textContent = String(count);
}

// ---- the live feed: STATE updates (most of the log) hidden unless asked for ---------------------

const NOISE = new Set(["state_updated", "heartbeat"]);

function describe(event) {
  const p = event.payload || {};
  if (p.category || p.topic) return [p.category, p.topic].filter(Boolean).join(" · ");
  if (p.block_id) return [p.block_id, p.name, p.owner ? `→ ${p.owner}` : null].filter(Boolean).join(" ");
  if (p.path) return p.path;
  if (Array.isArray(p.patterns)) return p.patterns.join(", ") + (p.holder && p.holder !== p.agent ? ` (of ${p.holder})` : "");
  if (p.phase_id) return p.phase_id;
  if (p.commit) return String(p.commit).slice(0, 10);
  if (p.message_id) return `${p.to ? `to ${p.to}: ` : ""}${p.summary || p.message_id}`;
  if (Array.isArray(p.fields)) return p.fields.join(", ");
  return "";
}

function addEvent(event, fresh) {
  if (state.seen.has(event.id)) return;
  state.seen.add(event.id);
  const p = event.payload || {};
  const who = p.agent || p.agent_id || p.from_agent || "";
  const noise = NOISE.has(event.type);
  const item = el("li", { class: [fresh ? "fresh" : "", noise ? "noise" : ""].join(" ").trim() || null, "data-event": event.id, "data-type": event.type },
    el("time", { datetime: event.timestamp, text: clock(event.timestamp) }),
    el("div", {}, el("span", { class: "type", text: event.type }), who ? ` ${who}` : "",
      el("div", { class: "muted", text: describe(event) })));
  const feed = $("feed");
  feed.prepend(item);
  while (feed.children.length > 200) {
    state.seen.delete(feed.lastElementChild.dataset.event);
    feed.lastElementChild.remove();
  }
  const hidden = feed.querySelectorAll("li.noise").length;
  $("feed-hidden").textContent = hidden && !$("feed-noise").checked ? `(${hidden} hidden)` : "";
}

// ---- notifications: what needs a person, in the page and (with permission) the browser's ------

function alertOf(event) {
  const p = event.payload || {};
  if (state.session.actor && p.agent === state.session.actor) return null; // what you did yourself
  const me = state.session.actor;
  switch (event.type) {
    case "entry_written":
      return ["blocker", "question"].includes(p.category) ? `${p.category} from ${p.agent}: ${p.summary || p.topic}` : null;
    case "write_conflict":
      return `write conflict on ${p.path}: ${p.agent} and ${(p.conflicting_agents || []).join(", ")}`;
    case "phase_approval_requested":
      return `${p.agent} asks to complete phase ${p.phase_id}: it waits for your approval`;
    case "block_planned":
      return p.status === "proposed" ? `${p.agent} proposes block ${p.block_id}${p.name ? `: ${p.name}` : ""}` : null;
    case "message_sent":
      return [me, "mc", "@all"].includes(p.to) ? `message from ${p.agent}: ${p.summary || ""}` : null;
    default:
      return null;
  }
}

function notify(event) {
  const text = alertOf(event);
  if (!text) return;
  toast(text, "alert");
  if ("Notification" in window && Notification.permission === "granted") {
    new Notification("gridgit", { body: text, tag: event.id });
  }
}
