"""How each real agent program is pointed at the scripted model, run without a person, and asked to act.

A Driver writes the program's user configuration into a home of its own (never the machine's),
returns the environment the program runs with, the command line of one non-interactive run,
and the tool calls the scripted model makes for an action (write a new file, edit a file, run
a shell command), in the program's own tool names and arguments (as its requests offer them).
Everything besides loopback is switched off the way each program documents or reads it:
telemetry, update checks, model catalogues fetched from the network.

Sources: Claude Code's settings and environment variables (https://code.claude.com/docs/en/settings:
`ANTHROPIC_BASE_URL`, `DISABLE_AUTOUPDATER`, `DISABLE_TELEMETRY`, `DISABLE_ERROR_REPORTING`,
`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`, `CLAUDE_CONFIG_DIR`; `-p` skips the workspace
trust dialog); Codex's config (https://developers.openai.com/codex/config-sample:
`model_providers.<id>.base_url` and `wire_api = "responses"`, `[projects."<dir>"] trust_level`,
`check_for_update_on_startup`, `[analytics] enabled`) and its hooks' trust
(https://developers.openai.com/codex/hooks: "Non-managed command hooks must be reviewed and
trusted before they run", stored by hash as `hooks.state.<key>.trusted_hash`; the TUI's /hooks
takes `currentHash` from the app-server's `hooks/list` and writes it with `config/batchWrite`,
which is what `trust_codex_hooks` does); OpenCode's config (https://opencode.ai/docs/providers:
an `@ai-sdk/openai-compatible` provider with `options.baseURL`; `OPENCODE_CONFIG`,
`OPENCODE_DISABLE_AUTOUPDATE`, `OPENCODE_DISABLE_MODELS_FETCH` read by its `flag.ts`);
Gemini CLI's source (packages/core/src/core/contentGenerator.ts: `GOOGLE_GEMINI_BASE_URL` is the
base URL of an API-key session; packages/cli/src/config/trustedFolders.ts: `trustedFolders.json`;
settings `privacy.usageStatisticsEnabled`, `telemetry.enabled`, `general.disableAutoUpdate`);
Copilot CLI's `copilot help environment` (`COPILOT_PROVIDER_BASE_URL` for a model provider of
one's own, `COPILOT_OFFLINE=true` "skips all network access", `COPILOT_AUTO_UPDATE=false`).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from tests.e2e.modelserver import Step


def _patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


class Driver:
    """One agent program: its configuration, its command line, its tool calls.

    WRITE, EDIT and SHELL name the program's tools and their arguments, as its requests offer
    them: (tool, path argument, content argument), (tool, path, old text, new text), (tool,
    command argument); SAID adds the arguments a tool asks for besides (a description).
    """

    tool = ""
    WRITE = ("", "", "")
    EDIT = ("", "", "", "")
    SHELL = ("", "")
    SAID: ClassVar[dict[str, dict[str, Any]]] = {}

    def prepare(
        self, exe: str, home: Path, cwd: Path, url: str, env: dict[str, str], trust_hooks: bool = True
    ) -> dict[str, str]:
        """Write the program's configuration under HOME for a run in CWD against URL; the environment it adds to ENV.

        TRUST_HOOKS: take the step a person takes to let the project's hooks run, where the program has one.
        """
        raise NotImplementedError

    def argv(self, exe: str, prompt: str) -> list[str]:
        raise NotImplementedError

    def call(self, name: str, label: str, **args: Any) -> Step:
        return Step(name, {**args, **self.SAID.get(name, {})}, label=label)

    def write(self, path: Path, cwd: Path, content: str, label: str = "") -> list[Step]:
        """The calls that create file PATH (absolute) with CONTENT."""
        name, at, text = self.WRITE
        return [self.call(name, label, **{at: str(path), text: content})]

    def edit(self, path: Path, cwd: Path, old: str, new: str, label: str = "") -> list[Step]:
        """The calls that replace OLD by NEW in the existing file PATH."""
        name, at, was, now = self.EDIT
        return [self.call(name, label, **{at: str(path), was: old, now: new})]

    def shell(self, command: str, label: str = "") -> Step:
        name, line = self.SHELL
        return self.call(name, label, **{line: command})


class Claude(Driver):
    tool = "claude"
    WRITE, EDIT, SHELL = (
        ("Write", "file_path", "content"),
        ("Edit", "file_path", "old_string", "new_string"),
        ("Bash", "command"),
    )
    SAID: ClassVar[dict[str, dict[str, Any]]] = {"Bash": {"description": "Run a command"}}

    def prepare(
        self, exe: str, home: Path, cwd: Path, url: str, env: dict[str, str], trust_hooks: bool = True
    ) -> dict[str, str]:
        return {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-ant-scripted", "CLAUDE_CONFIG_DIR": str(home / ".claude"),
                "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}  # fmt: skip

    def argv(self, exe: str, prompt: str) -> list[str]:
        # acceptEdits lets edits through without asking; Bash is allowed by name (no person to ask under -p)
        return [exe, "-p", prompt, "--model", "claude-sonnet-4-5", "--permission-mode", "acceptEdits",
                "--allowedTools", "Bash", "--output-format", "json"]  # fmt: skip

    def edit(self, path: Path, cwd: Path, old: str, new: str, label: str = "") -> list[Step]:
        # Claude Code refuses to edit a file this session has not read
        return [Step("Read", {"file_path": str(path)}), *super().edit(path, cwd, old, new, label)]


def _codex_rpc(exe: str, env: dict[str, str], cwd: Path, calls: list[tuple[str, Any]]) -> list[Any]:
    """Send CALLS (method, params, or a function of the previous results giving them) to `codex app-server`."""
    proc = subprocess.Popen([exe, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=cwd)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    results: list[Any] = []
    try:
        plan: list[tuple[str, Any]] = [("initialize", {"clientInfo": {"name": "gridgit-e2e", "version": "1"}}), *calls]
        for n, (method, params) in enumerate(plan):
            given = params(results) if callable(params) else params
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": given}) + "\n")
            proc.stdin.flush()
            while True:
                line = proc.stdout.readline()
                assert line, f"codex app-server closed before answering {method}"
                reply = json.loads(line)
                if reply.get("id") == n:
                    assert "error" not in reply, f"codex app-server {method}: {reply['error']}"
                    results.append(reply["result"])
                    break
            if method == "initialize":
                proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "initialized"}) + "\n")
    finally:  # every answer is in (batchWrite answers once the file is written): the server is not needed
        proc.kill()
        proc.wait()
    return results[1:]


def codex_hooks(exe: str, env: dict[str, str], cwd: Path) -> list[dict[str, Any]]:
    """Codex's `hooks/list` for CWD: every hook it found, with `trustStatus` and `sourcePath`."""
    listed = _codex_rpc(exe, env, cwd, [("hooks/list", {"cwds": [str(cwd)]})])[0]
    return [hook for entry in listed["data"] for hook in entry["hooks"]]


def trust_codex_hooks(exe: str, env: dict[str, str], cwd: Path) -> None:
    """Trust every hook Codex lists for CWD at its current hash, as its TUI's /hooks does."""

    def edits(results: list[Any]) -> dict[str, Any]:
        hooks = [hook for entry in results[-1]["data"] for hook in entry["hooks"]]
        return {"edits": [{"keyPath": f"hooks.state.{json.dumps(h['key'])}", "value": {"trusted_hash": h["currentHash"]},
                           "mergeStrategy": "upsert"} for h in hooks if h["trustStatus"] != "trusted"]}  # fmt: skip

    _codex_rpc(exe, env, cwd, [("hooks/list", {"cwds": [str(cwd)]}), ("config/batchWrite", edits)])


class Codex(Driver):
    tool = "codex"

    def prepare(
        self, exe: str, home: Path, cwd: Path, url: str, env: dict[str, str], trust_hooks: bool = True
    ) -> dict[str, str]:
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        # gpt-5.5 is in the model catalogue the binary carries, so Codex offers it its apply_patch tool
        (codex_home / "config.toml").write_text(
            f'model = "gpt-5.5"\nmodel_provider = "scripted"\ncheck_for_update_on_startup = false\n\n'
            f'[model_providers.scripted]\nname = "scripted"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
            f'env_key = "SCRIPTED_API_KEY"\n\n[projects.{json.dumps(str(cwd))}]\ntrust_level = "trusted"\n\n'
            "[analytics]\nenabled = false\n",
            encoding="utf-8",
        )
        added = {"CODEX_HOME": str(codex_home), "SCRIPTED_API_KEY": "sk-scripted"}
        if trust_hooks:
            trust_codex_hooks(exe, {**env, **added}, cwd)
        return added

    def argv(self, exe: str, prompt: str) -> list[str]:
        return [exe, "exec", "--sandbox", "danger-full-access", "--skip-git-repo-check", prompt]

    def write(self, path: Path, cwd: Path, content: str, label: str = "") -> list[Step]:
        added = [f"+{line}" for line in content.splitlines()]
        return [Step("apply_patch", _patch(f"*** Add File: {path.relative_to(cwd).as_posix()}", *added), label=label)]

    def edit(self, path: Path, cwd: Path, old: str, new: str, label: str = "") -> list[Step]:
        lines = ["@@", *(f"-{line}" for line in old.splitlines()), *(f"+{line}" for line in new.splitlines())]
        return [
            Step("apply_patch", _patch(f"*** Update File: {path.relative_to(cwd).as_posix()}", *lines), label=label)
        ]

    def shell(self, command: str, label: str = "") -> Step:
        # not a login shell: a login profile may reset PATH, and gridgit (where the user installed it) with it
        return Step("exec_command", {"cmd": command, "login": False}, label=label)


class OpenCode(Driver):
    tool = "opencode"
    WRITE, EDIT, SHELL = (
        ("write", "filePath", "content"),
        ("edit", "filePath", "oldString", "newString"),
        ("bash", "command"),
    )
    SAID: ClassVar[dict[str, dict[str, Any]]] = {"bash": {"description": "Run a command"}}

    def prepare(
        self, exe: str, home: Path, cwd: Path, url: str, env: dict[str, str], trust_hooks: bool = True
    ) -> dict[str, str]:
        config = home / "opencode.json"
        home.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({
            "$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
            "model": "scripted/scripted-model",
            "provider": {"scripted": {"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
                                      "options": {"baseURL": f"{url}/v1", "apiKey": "sk-scripted"},
                                      "models": {"scripted-model": {"name": "Scripted model", "tool_call": True}}}},
            "permission": {"edit": "allow", "bash": "allow"},
        }), encoding="utf-8")  # fmt: skip
        # OpenCode installs its plugin SDK (@opencode-ai/plugin) into every config folder that has
        # plugins, in the background, from the registry (~10 s); gridgit's plugin imports nothing,
        # so the install is told to stay offline and fails at once, harmlessly.
        return {"OPENCODE_CONFIG": str(config), "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
                "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
                "npm_config_offline": "true", "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
                "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state")}  # fmt: skip

    def argv(self, exe: str, prompt: str) -> list[str]:
        return [exe, "run", "--print-logs", prompt]


class Gemini(Driver):
    tool = "gemini"
    WRITE, EDIT = ("write_file", "file_path", "content"), ("replace", "file_path", "old_string", "new_string")
    SHELL = ("run_shell_command", "command")
    SAID: ClassVar[dict[str, dict[str, Any]]] = {
        "replace": {"instruction": "Update the file."},
        "run_shell_command": {"description": "Run a command."},
    }

    def prepare(
        self, exe: str, home: Path, cwd: Path, url: str, env: dict[str, str], trust_hooks: bool = True
    ) -> dict[str, str]:
        folder = home / ".gemini"
        folder.mkdir(parents=True, exist_ok=True)
        settings = {"general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                    "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
                    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": True}}}  # fmt: skip
        (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        (folder / "trustedFolders.json").write_text(json.dumps({str(cwd): "TRUST_FOLDER"}), encoding="utf-8")
        return {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "scripted-key"}

    def argv(self, exe: str, prompt: str) -> list[str]:
        return [exe, "-p", prompt, "-m", "gemini-2.5-pro", "--approval-mode", "yolo", "--output-format", "json"]


class Copilot(Driver):
    tool = "copilot"
    WRITE, EDIT, SHELL = ("create", "path", "file_text"), ("edit", "path", "old_str", "new_str"), ("bash", "command")
    SAID: ClassVar[dict[str, dict[str, Any]]] = {"bash": {"description": "Run a command", "mode": "sync"}}

    def prepare(
        self, exe: str, home: Path, cwd: Path, url: str, env: dict[str, str], trust_hooks: bool = True
    ) -> dict[str, str]:
        return {"COPILOT_PROVIDER_BASE_URL": f"{url}/v1", "COPILOT_PROVIDER_TYPE": "openai",
                "COPILOT_PROVIDER_API_KEY": "sk-scripted", "COPILOT_MODEL": "gpt-4.1", "COPILOT_OFFLINE": "true",
                "COPILOT_AUTO_UPDATE": "false", "COPILOT_HOME": str(home / ".copilot")}  # fmt: skip

    def argv(self, exe: str, prompt: str) -> list[str]:
        # --trust-folder: this run loads the repository's hooks, as a person's "trust this folder" does
        return [exe, "-p", prompt, "--allow-all-tools", "--trust-folder", "--disable-client-telemetry",
                "--no-auto-update"]  # fmt: skip


DRIVERS: dict[str, Callable[[], Driver]] = {
    "claude": Claude, "codex": Codex, "opencode": OpenCode, "gemini": Gemini, "copilot": Copilot,
}  # fmt: skip
