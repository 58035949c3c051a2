
"use strict";
// gridgit serve: the page fills itself from the JSON API and keeps itself current from the event
// stream. Everything from .grid/ is untrusted (agents write it): it only ever becomes text
// (textContent, text nodes), never markup.
(() => {
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = String(value);
      else node.setAttribute(key, String(value));
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  const show = (node, visible) => { node.hidden = !visible; };

  function clock(ts) {
    const when = new Date(ts);
    return isNaN(when) ? String(ts || "") : when.toLocaleTimeString([], { hour12: false });
  }

  function age(minutes) {
    if (minutes === null || minutes === undefined) return "never";
    if (minutes < 1) return "just now";
    if (minutes < 60) return `${Math.floor(minutes)}m ago`;
    return `${Math.floor(minutes / 60)}h${String(Math.floor(minutes % 60)).padStart(2, "0")}m ago`;
  }

  async function api(path) {
    const response = await fetch(path, { cache: "no-store", headers: { Accept: "application/json" } });
    let answer;
    try {
      answer = await response.json();
    } catch (err) {
      throw new Error(`${path}: ${response.status} ${response.statusText}`);
    }
    if (!answer.ok) throw new Error(answer.error ? answer.error.message : `${path}: ${response.status}`);
    return answer.data;
  }

  // ---- the mission header, open items, recent conflicts (all from /api/status) ----------------

  function renderStatus(data) {
    const mission = data.mission || "gridgit";
    $("mission").textContent = mission;
    document.title = `${mission} · gridgit`;
    $("mission-status").textContent = data.status || "";
    $("mission-mode").textContent = data.mode || "";
    const pos = data.position || {};
    const done = (data.phases_completed || []).length;
    const total = data.phases_total || 0;
    $("phase-line").textContent = `Phase ${pos.phase || "-"}/${total || "-"}: ${pos.phase_id || "-"} ${pos.phase_name || ""}`.trim();
    $("phase-progress").max = Math.max(total, 1);
    $("phase-progress").value = done;
    $("phase-count").textContent = `${done} of ${total} phases done`;
    $("mission-percent").textContent = `${Number(data.progress || 0)}%`;
    const block = pos.block_id || pos.block;
    const parts = [];
    if (block) parts.push(`Block ${block}${pos.block_name ? `: ${pos.block_name}` : ""}`);
    if (pos.thread) parts.push(`Thread ${pos.thread}/${pos.thread_total || "-"}`);
    if (data.last_commit) parts.push(`Last commit ${String(data.last_commit).slice(0, 10)}`);
    $("position").textContent = parts.join(" · ");

    const open = $("open");
    open.replaceChildren(...(data.open || []).map((item) => el("li", {},
      el("span", { class: `pill cat-${item.kind}`, text: item.kind }), " ",
      el("span", { class: "muted", text: item.source }), " ",
      el("span", { text: item.text }), " ",
      item.agent ? el("span", { class: "muted", text: `(${item.agent})` }) : null)));
    $("open-count").textContent = String((data.open || []).length);
    if (!open.children.length) open.append(el("li", { class: "empty", text: "None open." }));

    const recent = $("conflicts-recent");
    recent.replaceChildren(...(data.conflicts || []).map((event) => {
      const p = event.payload || {};
      const others = (p.conflicting_agents || []).join(", ") || "?";
      return el("li", {}, el("time", { text: clock(event.timestamp) }), " ", el("code", { text: p.path || "?" }),
        ` ${p.agent || "?"} vs ${others}`);
    }));
    $("conflicts-recent-count").textContent = String((data.conflicts || []).length);
    if (!recent.children.length) recent.append(el("li", { class: "empty", text: "None in the last hour." }));
    renderWork(data);
  }

  // ---- blocks, cost, debug sessions (also from /api/status) -----------------------------------

  function renderWork(data) {
    const blocks = data.blocks || [];
    const ready = new Set(data.ready || []);
    $("blocks").tBodies[0].replaceChildren(...blocks.map((block) => el("tr", { "data-block": block.block_id },
      el("td", {}, el("div", { text: block.block_id }), el("div", { class: "muted", text: block.name || "" })),
      el("td", {}, el("span", { class: `pill block-${block.status}`, text: block.status }),
        ready.has(block.block_id) ? el("span", { class: "pill", text: "ready" }) : null),
      el("td", { text: block.owner || "-" }))));
    const done = blocks.filter((block) => block.status === "complete").length;
    $("blocks-count").textContent = blocks.length ? `${done} of ${blocks.length} complete` : "";
    show($("blocks-empty"), !blocks.length);
    const cost = data.budget;
    const money = (usd) => `$${Number(usd || 0).toFixed(4)}`;
    $("cost").textContent = !cost ? "-" : `${money(cost.total_usd)}`
      + (cost.limit_usd ? ` of $${Number(cost.limit_usd).toFixed(2)} (${cost.percent}%)` : " (no limit set)")
      + ` · ${cost.messages || 0} messages`;
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

  // ---- agents ---------------------------------------------------------------------------------

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
    $("agents").tBodies[0].replaceChildren(...state.agents.map((agent) => {
      const minutes = agent.minutes_since === null || agent.minutes_since === undefined ? null : agent.minutes_since + elapsed;
      const lvl = level(agent, minutes);
      if (lvl === "stale") stale += 1;
      const progress = agent.progress === null || agent.progress === undefined ? null : Number(agent.progress);
      return el("tr", { class: lvl === "stale" ? "stale" : null, "data-agent": agent.id },
        el("td", { class: "agent" },
          el("div", { text: agent.id }),
          el("span", { class: "pill", text: agent.type }), " ",
          el("span", { class: "pill", text: agent.registered ? "registered" : "seen" })),
        el("td", {},
          el("div", { text: agent.action || agent.task || "-" }),
          agent.action && agent.task ? el("div", { class: "muted", text: agent.task }) : null,
          agent.thread ? el("div", { class: "muted", text: agent.thread }) : null,
          progress === null ? null : el("div", {}, el("progress", { max: 100, value: progress }), ` ${progress}%`)),
        el("td", { class: "beat" },
          el("span", { class: `pill level-${lvl.replace("/", "")}`, text: lvl === "stale" ? "STALE" : lvl }),
          el("div", { class: "muted", text: lvl === "n/a" ? "" : age(minutes) })));
    }), ...state.completed.map((agent) => el("tr", { class: "done", "data-agent": agent.id },
      // Finished agents stay in sight, greyed: what they did is part of the mission.
      el("td", { class: "agent" },
        el("div", { text: agent.id }),
        el("span", { class: "pill", text: agent.type || "" }), " ",
        el("span", { class: "pill", text: "completed" })),
      el("td", {},
        el("div", { text: agent.summary || agent.task || "-" }),
        el("div", { class: "muted", text: agent.result || "" })),
      el("td", { class: "beat" },
        el("span", { class: "pill", text: "done" }),
        el("div", { class: "muted", text: agent.completed_at ? clock(agent.completed_at) : "" })))));
    const done = state.completed.length;
    $("agents-count").textContent = `${state.agents.length}${stale ? `, ${stale} stale` : ""}${done ? `, ${done} done` : ""}`;
    show($("agents-empty"), !state.agents.length && !done);
  }

  // ---- entries --------------------------------------------------------------------------------

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

  function renderEntry(entry) {
    const classes = ["entry", `rel-border-${entry.relevance}`];
    if (entry.open) classes.push("open");
    return el("article", { class: classes.join(" "), "data-entry": entry.id },
      el("div", { class: "entry-head" },
        el("span", { class: "muted", text: entry.archived ? `archive #${entry.id}` : `#${entry.id}` }),
        entry.open ? el("span", { class: "pill open-mark", text: "open" }) : null,
        el("span", { class: `pill cat-${entry.category}`, text: entry.category }),
        el("span", { class: `pill rel-${entry.relevance}`, text: entry.relevance }),
        el("code", { text: entry.topic }),
        el("span", { text: entry.agent_id }),
        (entry.contributors || []).length ? el("span", { class: "muted", text: `+ ${entry.contributors.join(", ")}` }) : null,
        entry.block_id ? el("span", { class: "muted", text: `block ${entry.block_id}` }) : null,
        el("time", { datetime: entry.timestamp, text: clock(entry.timestamp) })),
      entry.title ? el("div", { class: "entry-title", text: entry.title }) : null,
      (entry.tags || []).length ? el("div", { class: "tags", text: entry.tags.map((t) => `#${t}`).join(" ") }) : null,
      el("pre", { class: "content", text: entry.content }),
      (entry.commits || []).length
        ? el("div", { class: "commits" }, "commits", ...entry.commits.map((c) => el("code", { title: c, text: c.slice(0, 7) })))
        : null);
  }

  function renderEntries(data) {
    fillSelect($("filter-category"), data.facets.categories, "all");
    fillSelect($("filter-agent"), data.facets.agents, "all");
    fillSelect($("filter-topic"), data.facets.topics, "all");
    fillSelect($("filter-relevance"), data.facets.relevances, "any");
    // Heartbeats are what the agents panel shows; among the entries they are noise unless asked for.
    const beats = $("filter-heartbeats").checked || $("filter-category").value === "heartbeat";
    const entries = beats ? data.entries : data.entries.filter((e) => e.category !== "heartbeat");
    $("entries").replaceChildren(...entries.map(renderEntry));
    const shown = entries.length;
    const hidden = data.entries.length - shown;
    $("entries-count").textContent = `${data.phase_id}${data.archived ? " archive" : ""}: ${shown === data.total ? shown : `${shown} of ${data.total}`}${hidden ? ` (${hidden} heartbeats hidden)` : ""}`;
    show($("entries-empty"), !shown);
  }

  function renderPhases(phases) {
    fillSelect($("filter-phase"), phases.map((p) => p.id), "current");
  }

  // ---- search -----------------------------------------------------------------------------------

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
        hit.timestamp ? el("time", { datetime: hit.timestamp, text: hit.timestamp }) : null),
      hit.title ? el("div", { class: "entry-title", text: hit.title }) : null,
      el("pre", { class: "content" }, ...marked(hit.snippet)),
      (hit.files || []).length ? el("div", { class: "tags", text: `cites ${hit.files.join(", ")}` }) : null);
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

  // ---- conflicts and claims, learnings ----------------------------------------------------------

  function renderConflicts(data) {
    const open = $("conflicts-open");
    open.replaceChildren(...data.open.map((c) => el("li", {},
      el("code", { text: c.path }), ` ${(c.agents || []).join(", ")}`,
      el("div", { class: "muted", text: `since ${clock(c.first_detected)}, last ${clock(c.last_detected)}` }))));
    $("conflicts-open-count").textContent = String(data.open.length);
    if (!open.children.length) open.append(el("li", { class: "empty", text: "None open." }));
    const claims = $("claims");
    claims.replaceChildren(...data.claims.map((c) => el("li", {},
      el("code", { text: c.pattern }), ` ${c.agent}`,
      c.exclusive ? el("span", { class: "pill level-warning", text: "exclusive" }) : null,
      el("div", { class: "muted", text: `until ${clock(c.expires_at)}${c.reason ? ` · ${c.reason}` : ""}` }))));
    $("claims-count").textContent = String(data.claims.length);
    if (!claims.children.length) claims.append(el("li", { class: "empty", text: "No live claims." }));
  }

  function renderMessages(data) {
    const list = $("messages");
    list.replaceChildren(...data.messages.map((m) => {
      const acked = Object.keys(m.acks || {});
      return el("li", { "data-message": m.id },
        el("time", { datetime: m.sent_at, text: clock(m.sent_at) }), " ",
        el("span", { text: `${m.from} → ${m.to}` }), " ",
        m.thread !== m.id ? el("span", { class: "muted", text: `thread ${m.thread}` }) : null,
        el("pre", { class: "content", text: m.content }),
        el("div", { class: "muted", text: acked.length ? `acknowledged by ${acked.join(", ")}` : "not acknowledged yet" }));
    }));
    $("messages-count").textContent = data.messages.length === data.total ? String(data.total) : `${data.messages.length} of ${data.total}`;
    if (!list.children.length) list.append(el("li", { class: "empty", text: "No messages." }));
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
          l.agent_id || l.phase_id ? el("div", { class: "muted", text: [l.agent_id, l.phase_id].filter(Boolean).join(" · ") }) : null)));
      details.open = wasOpen.has(section.name) || (!state.learningsSeen && section.learnings.length > 0);
      return details;
    }));
    state.learningsSeen = true;
    $("learnings-count").textContent = String(count);
  }

  // ---- the live feed ----------------------------------------------------------------------------

  function describe(event) {
    const p = event.payload || {};
    if (p.category || p.topic) return [p.category, p.topic].filter(Boolean).join(" · ");
    if (p.path) return p.path;
    if (Array.isArray(p.patterns)) return p.patterns.join(", ");
    if (p.phase_id) return p.phase_id;
    if (p.commit) return String(p.commit).slice(0, 10);
    if (p.message_id) return `${p.to ? `to ${p.to}: ` : ""}${p.summary || p.message_id}`;
    return "";
  }

  function addEvent(event, fresh) {
    if (state.seen.has(event.id)) return;
    state.seen.add(event.id);
    const p = event.payload || {};
    const who = p.agent || p.agent_id || p.from_agent || "";
    const item = el("li", { class: fresh ? "fresh" : null, "data-event": event.id },
      el("time", { datetime: event.timestamp, text: clock(event.timestamp) }),
      el("div", {}, el("span", { class: "type", text: event.type }), who ? ` ${who}` : "",
        el("div", { class: "muted", text: describe(event) })));
    const feed = $("feed");
    feed.prepend(item);
    while (feed.children.length > 200) {
      state.seen.delete(feed.lastElementChild.dataset.event);
      feed.lastElementChild.remove();
    }
  }

  // ---- loading, and reloading what an event touched ---------------------------------------------

  const state = {
    agents: [], completed: [], agentsAt: Date.now(), warningMinutes: 5, staleMinutes: 10,
    seen: new Set(), learningsSeen: false,
  };

  const LOADERS = {
    status: async () => renderStatus(await api("/api/status")),
    agents: async () => {
      const data = await api("/api/agents");
      Object.assign(state, { agents: data.agents, completed: data.completed || [], agentsAt: Date.now(), warningMinutes: data.warning_minutes, staleMinutes: data.stale_minutes });
      renderAgents();
    },
    entries: async () => renderEntries(await api(`/api/entries?${entriesQuery()}`)),
    phases: async () => renderPhases(await api("/api/phases")),
    conflicts: async () => renderConflicts(await api("/api/conflicts")),
    learnings: async () => renderLearnings(await api("/api/learnings")),
    messages: async () => renderMessages(await api("/api/messages")),
    search: runSearch,
    feed: async () => {
      for (const event of await api("/api/events?limit=50")) addEvent(event, false);
    },
  };
  const ERRORS = { status: "status-error", agents: "agents-error", entries: "entries-error", phases: "entries-error",
    conflicts: "conflicts-error", learnings: "learnings-error", messages: "messages-error", feed: "status-error",
    search: "search-error" };

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

  const PHASE = ["status", "agents", "entries", "phases", "learnings", "search"];
  const AFFECTS = {
    entry_written: ["entries", "agents", "status", "search"], entry_merged: ["entries", "agents", "status", "search"],
    handoff_posted: ["entries"], scratchpad_archived: ["entries", "status", "phases"],
    scratchpad_reindexed: ["entries"], heartbeat: ["agents"],
    state_updated: ["status", "agents"], blocker_added: ["status"],
    phase_changed: PHASE, phase_started: PHASE, phase_completed: PHASE, phase_archived: PHASE,
    agent_spawned: ["agents", "status"], agent_complete: ["agents", "status"], agent_stale: ["agents", "status"],
    file_modified: ["agents"], files_modified_bulk: ["agents"],
    write_conflict: ["conflicts", "status", "agents"], conflict_resolved: ["conflicts", "status"],
    claim_added: ["conflicts", "agents"], claim_released: ["conflicts", "agents"],
    learning_extracted: ["learnings", "search"], commit_recorded: ["entries", "status"], memory_updated: ["search"],
    message_sent: ["messages"], message_acked: ["messages"],
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
      const names = AFFECTS[event.type] || ["status", "agents"];
      Promise.all(names.map(refresh)).then(stamp);
    };
    stream.addEventListener("resync", () => refreshAll().then(stamp));
  }

  for (const name of FILTERS) $(`filter-${name}`).addEventListener("change", () => refresh("entries"));
  $("filter-archived").addEventListener("change", () => refresh("entries"));
  $("filter-heartbeats").addEventListener("change", () => refresh("entries"));
  $("filter-reset").addEventListener("click", () => {
    for (const name of FILTERS) $(`filter-${name}`).value = "";
    $("filter-archived").checked = false;
    $("filter-heartbeats").checked = false;
    refresh("entries");
  });
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    refresh("search");
  });
  $("search-clear").addEventListener("click", () => {
    $("search-q").value = "";
    $("search-file").value = "";
    refresh("search");
  });
  // Heartbeat ages grow with time alone: recount them here instead of asking the server.
  setInterval(() => { if (state.agents.length) renderAgents(); }, 5000);

  connect();
  refreshAll().then(() => {
    stamp();
    document.body.dataset.state = "ready";
  });
})();
