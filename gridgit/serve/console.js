// gridgit serve, the controls: the header's mode and phase buttons, the message composer, the
// filters and the feed's toggle, notifications; then the page starts (session, stream, panels).

$("mode").addEventListener("change", async () => {
  const chosen = $("mode").value;
  if (!(await run("set_mode", { mode: chosen }, $("mode"), ["status", "blocks"]))) {
    $("mode").value = state.status.mode || "autopilot";
  }
});

// Completing a phase asks once more: the first click arms the button for five seconds.
$("complete-phase").addEventListener("click", async () => {
  const button = $("complete-phase");
  const phase = button.dataset.phase;
  if (!phase) return;
  if (button.dataset.armed !== phase) {
    button.dataset.armed = phase;
    button.dataset.label = button.textContent;
    button.textContent = `Confirm: complete ${phase}`;
    setTimeout(() => {
      if (button.dataset.armed === phase) {
        button.dataset.armed = "";
        button.textContent = button.dataset.label;
      }
    }, 5000);
    return;
  }
  button.dataset.armed = "";
  button.textContent = button.dataset.label;
  await run("complete_phase", { phase }, button, PHASE);
});

$("compose").addEventListener("submit", async (event) => {
  event.preventDefault();
  const sent = await run("send", { to: $("compose-to").value.trim(), content: $("compose-content").value }, $("compose").querySelector("button"), ["messages"]);
  if (sent) $("compose-content").value = "";
});

$("plan-new").addEventListener("click", () => openEditor(null));
$("editor-form").addEventListener("submit", saveEditor);
$("ed-cancel").addEventListener("click", () => $("editor").close());

for (const [tab, view] of [["tab-board", "board"], ["tab-deps", "deps"]]) {
  $(tab).addEventListener("click", () => {
    for (const [other, pane] of [["tab-board", "board"], ["tab-deps", "deps"]]) {
      $(other).classList.toggle("on", other === tab);
      show($(pane), pane === view);
    }
  });
}

$("feed-noise").addEventListener("change", () => {
  $("feed").classList.toggle("noisy", $("feed-noise").checked);
  const hidden = $("feed").querySelectorAll("li.noise").length;
  $("feed-hidden").textContent = hidden && !$("feed-noise").checked ? `(${hidden} hidden)` : "";
});

$("notify").addEventListener("click", async () => {
  const answer = await Notification.requestPermission();
  show($("notify"), answer === "default");
  toast(answer === "granted" ? "the browser will tell you of blockers, questions, conflicts and approvals" : "no browser notifications; they still show here", "ok");
});

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

// Ages grow with time alone: recount them here instead of asking the server.
setInterval(() => {
  if (state.agents.length) renderAgents();
  recount();
}, 15000);

startSession().then(() => {
  connect();
  return refreshAll();
}).then(() => {
  stamp();
  document.body.dataset.state = "ready";
});
