// gridgit serve, the board: a phase's blocks in columns (proposed, planned, ready, taken, in
// progress, complete), a dependency view, the block editor, and dragging a card where the action
// allows it (onto planned or ready: approve or release; onto an agent: assign). What waits for
// approval and every taken block are shown in the header.

const LANES = [
  ["proposed", "Proposed"], ["planned", "Planned"], ["ready", "Ready"],
  ["taken", "Taken"], ["in_progress", "In progress"], ["complete", "Complete"],
];

const laneOf = (block) => (block.status === "planned" ? (block.ready ? "ready" : "planned") : block.status);

// The agents a block may be given to: registered, and neither a scout (they only read) nor Master Control.
const workers = () => state.agents.filter((a) => a.registered && !["scout", "mc"].includes(a.type)).map((a) => a.id);

function card(block) {
  const held = ["taken", "in_progress"].includes(block.status);
  const node = el("article", { class: `card ${laneOf(block)}`, "data-block": block.block_id, "data-status": block.status,
    "data-owner": block.owner || "", "data-priority": block.priority, draggable: state.session.can_act && block.status !== "complete" ? "true" : null },
  el("div", { class: "card-head" }, el("code", { text: block.block_id }), el("span", { class: "card-name", text: block.name || "" })),
  el("div", { class: "meta" },
    el("span", { class: "pill", text: `wave ${block.wave}` }),
    el("span", { class: "pill", title: "priority: 0 first, 4 last", text: `P${block.priority}` }),
    block.owner ? el("span", { class: "pill block-taken", text: block.owner }) : null),
  (block.depends_on || []).length ? el("div", { class: "muted", text: `after ${block.depends_on.join(", ")}` }) : null,
  (block.files || []).length ? el("div", { class: "meta" }, ...block.files.map((f) => el("code", { text: f }))) : null,
  block.waits && !["complete"].includes(block.status) && !held ? el("div", { class: "why", text: block.waits }) : null,
  block.stale_owner ? el("div", { class: "why", text: `offered again: ${block.stale_owner} went quiet` }) : null);
  if (block.status === "complete") return node;
  const buttons = el("div", { class: "actions acts" });
  if (block.status === "proposed") {
    buttons.append(el("button", { type: "button", class: "primary approve", text: "Approve",
      onclick: (event) => run("approve_block", { block: block.block_id }, event.currentTarget, ["blocks"]) }));
  }
  if (held) {
    buttons.append(el("button", { type: "button", class: "release", text: "Release",
      onclick: (event) => run("release_block", { block: block.block_id }, event.currentTarget, BLOCKS) }));
  }
  if (block.status !== "proposed") {
    const pick = el("select", { class: "assign-to", "aria-label": `Give ${block.block_id} to` },
      el("option", { value: "", text: held ? "reassign to…" : "assign to…" }),
      ...workers().filter((id) => id !== block.owner).map((id) => el("option", { value: id, text: id })));
    pick.addEventListener("change", () => {
      if (pick.value) run("assign_block", { block: block.block_id, to: pick.value, from: block.owner || "" }, pick, BLOCKS);
    });
    buttons.append(pick);
  }
  const bump = (delta, label, text) => el("button", { type: "button", class: `priority-${label}`, title: `priority ${label}`, text,
    disabled: block.priority + delta < 0 || block.priority + delta > 4 ? "disabled" : null,
    onclick: (event) => run("plan_block", { block: block.block_id, priority: block.priority + delta }, event.currentTarget, ["blocks"]) });
  buttons.append(bump(-1, "up", "↑"), bump(1, "down", "↓"),
    el("button", { type: "button", class: "edit", text: "Edit", onclick: () => openEditor(block) }));
  node.append(buttons);
  node.addEventListener("dragstart", (event) => {
    event.dataTransfer.setData("application/x-gridgit-block", JSON.stringify({ block: block.block_id, status: block.status, owner: block.owner || "" }));
    event.dataTransfer.effectAllowed = "move";
  });
  return node;
}

// Where a dragged card may go, and what dropping it there does.
function dropAction(dragged, target) {
  const held = ["taken", "in_progress"].includes(dragged.status);
  if (target.lane && ["planned", "ready"].includes(target.lane)) {
    if (dragged.status === "proposed") return ["approve_block", { block: dragged.block }];
    if (held) return ["release_block", { block: dragged.block }];
  }
  if (target.agent && dragged.status !== "proposed" && dragged.owner !== target.agent && workers().includes(target.agent)) {
    return ["assign_block", { block: dragged.block, to: target.agent, from: dragged.owner }];
  }
  return null;
}

function dropTarget(node, agent, lane) {
  const target = { agent, lane };
  const dragged = (event) => {
    const raw = event.dataTransfer && event.dataTransfer.getData("application/x-gridgit-block");
    return raw ? JSON.parse(raw) : null;
  };
  node.addEventListener("dragover", (event) => {
    if (!state.session.can_act || ![...event.dataTransfer.types].includes("application/x-gridgit-block")) return;
    event.preventDefault(); // the data itself is only readable on drop: the drop says whether it fits
    node.classList.add("drop");
  });
  node.addEventListener("dragleave", () => node.classList.remove("drop"));
  node.addEventListener("drop", (event) => {
    event.preventDefault();
    node.classList.remove("drop");
    const what = dragged(event);
    const action = what && dropAction(what, target);
    if (!action) {
      if (what) toast(`block ${what.block} cannot go there`, "bad");
      return;
    }
    run(action[0], action[1], null, BLOCKS);
  });
}

function renderBoard(data) {
  const blocks = data.blocks || [];
  const lanes = LANES.map(([name, title]) => {
    const mine = blocks.filter((b) => laneOf(b) === name);
    mine.sort((a, b) => a.wave - b.wave || a.priority - b.priority || a.block_id.localeCompare(b.block_id));
    const lane = el("div", { class: "lane", "data-lane": name },
      el("h3", {}, el("span", { text: title }), el("span", { class: "count", text: String(mine.length) })),
      ...mine.map(card));
    dropTarget(lane, null, name);
    return lane;
  });
  $("board").replaceChildren(...lanes);
  const done = blocks.filter((b) => b.status === "complete").length;
  $("blocks-count").textContent = blocks.length ? `${data.phase_id}: ${done} of ${blocks.length} complete` : data.phase_id;
  show($("blocks-empty"), !blocks.length);
  renderDeps(blocks);
  renderWaiting(data);
}

// The header: what waits for Master Control's approval, and every block taken now.
function renderWaiting(data) {
  const approvals = data.approvals || { phases: [], blocks: [] };
  const box = $("approval");
  const parts = [];
  for (const phase of approvals.phases || []) {
    parts.push(el("span", {}, `Phase ${phase.phase_id} waits for your approval: asked by ${phase.requested_by} `, age(phase.requested_at), " "),
      el("button", { type: "button", class: "primary acts approve-phase", text: `Approve: complete ${phase.phase_id}`,
        onclick: (event) => run("complete_phase", { phase: phase.phase_id }, event.currentTarget, PHASE) }));
  }
  const proposed = (approvals.blocks || []).length;
  if (proposed) parts.push(el("span", { text: `${proposed} proposed block${proposed > 1 ? "s" : ""} wait${proposed > 1 ? "" : "s"} for approval (mode ${approvals.mode})` }));
  box.replaceChildren(...parts);
  show(box, parts.length > 0);
  const held = (data.blocks || []).filter((b) => ["taken", "in_progress"].includes(b.status));
  $("taken").replaceChildren(...(held.length ? [el("span", { class: "muted", text: "Taken:" })] : []),
    ...held.map((b) => el("span", { class: "pill block-taken", "data-taken": b.block_id, text: `${b.block_id} ${b.owner} (${b.status.replace("_", " ")})` })));
  const asked = (approvals.phases || []).some((p) => p.phase_id === $("complete-phase").dataset.phase);
  $("complete-phase").textContent = asked ? "Approve completion" : "Complete phase";
}

// The phase's dependencies: waves left to right, an arrow from each block to the blocks after it.
function renderDeps(blocks) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = (tag, attrs, text) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const waves = [...new Set(blocks.map((b) => b.wave))].sort((a, b) => a - b);
  const at = {};
  const W = 170; const H = 36; const GX = 60; const GY = 14;
  let rows = 0;
  waves.forEach((wave, x) => {
    blocks.filter((b) => b.wave === wave).forEach((b, y) => {
      at[b.block_id] = { x: 10 + x * (W + GX), y: 10 + y * (H + GY) };
      rows = Math.max(rows, y + 1);
    });
  });
  const root = svg("svg", { width: 20 + waves.length * (W + GX), height: 20 + rows * (H + GY), role: "img", "aria-label": "dependencies of the phase's blocks" });
  for (const b of blocks) {
    for (const dep of b.depends_on || []) {
      if (!at[dep]) continue;
      const a = at[dep]; const z = at[b.block_id];
      root.append(svg("path", { d: `M${a.x + W},${a.y + H / 2} C${a.x + W + GX / 2},${a.y + H / 2} ${z.x - GX / 2},${z.y + H / 2} ${z.x},${z.y + H / 2}`, "data-edge": `${dep}>${b.block_id}` }));
    }
  }
  for (const b of blocks) {
    const p = at[b.block_id];
    const label = `${b.block_id} ${b.name || ""}`;
    const node = svg("g", { class: `node ${b.status}`, "data-node": b.block_id });
    node.append(svg("rect", { x: p.x, y: p.y, width: W, height: H, rx: 5 }),
      svg("text", { x: p.x + 6, y: p.y + 14 }, label.length > 26 ? `${label.slice(0, 25)}…` : label),
      svg("text", { x: p.x + 6, y: p.y + 29 }, `${b.status.replace("_", " ")}${b.owner ? ` · ${b.owner}` : ""}`),
      svg("title", {}, label));
    root.append(node);
  }
  $("deps").replaceChildren(blocks.length ? root : el("p", { class: "empty", text: "No blocks." }));
}

// ---- the block editor: plan a new block, or edit one (its take and status stay) ---------------

function openEditor(block) {
  const editing = Boolean(block);
  $("editor-title").textContent = editing ? `Edit block ${block.block_id}` : "Plan a block";
  $("ed-block").value = editing ? block.block_id : "";
  $("ed-block").readOnly = editing;
  $("ed-name").value = editing ? block.name || "" : "";
  $("ed-content").value = editing ? block.plan || "" : "";
  $("ed-deps").value = editing ? (block.depends_on || []).join(", ") : "";
  $("ed-files").value = editing ? (block.files || []).join(", ") : "";
  $("ed-wave").value = editing ? String(block.wave) : "";
  $("ed-priority").value = String(editing ? block.priority : 2);
  $("editor").dataset.editing = editing ? block.block_id : "";
  show($("editor-error"), false);
  $("editor").showModal();
}

const list = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);

async function saveEditor(event) {
  event.preventDefault();
  const body = {
    block: $("ed-block").value.trim(), name: $("ed-name").value, depends_on: list($("ed-deps").value),
    files: list($("ed-files").value), priority: Number($("ed-priority").value),
  };
  if ($("ed-content").value.trim()) body.content = $("ed-content").value;
  if ($("ed-wave").value) body.wave = Number($("ed-wave").value);
  $("ed-save").disabled = true;
  try {
    const data = await act("plan_block", body);
    toast(data.message, "ok");
    document.body.dataset.lastAction = "plan_block: ok";
    $("editor").close();
    refresh("blocks");
  } catch (err) {
    // Shown in the editor, which stays open with what was typed: the person corrects it there.
    $("editor-error").textContent = err.message;
    document.body.dataset.lastAction = `plan_block: ${err.message}`;
    show($("editor-error"), true);
  } finally {
    $("ed-save").disabled = false;
  }
}
