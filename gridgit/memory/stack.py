"""STATE's `persistent.tech_stack`, from what the repository shows (the spec's "tech stack (accumulated)").

What gridgit reads of the tracked files (`git ls-files` of the work tree):

- `languages`: the tracked files per language, by extension (the ten most numerous);
- `manifests`: the package manifests found (pyproject.toml, requirements.txt, package.json,
  go.mod, Cargo.toml; the shallowest MAX_MANIFESTS of them);
- `runtime`: what the first manifest says it runs on (`python>=3.10`, `node>=20`, `go 1.22`,
  `rust 2021`), set only while the stack has none (a person's or agent's value is kept);
- `added_packages`: each package a manifest depends on, with the phase it was first seen in
  (the spec's `{name, added_phase}`) and its manifest (`source`); at most MAX_PACKAGES;
- `skipped`: each manifest that does not parse, and why (and a warning on stderr).

Every other key of the stack (`database`, `orm`, ... set by `gridgit state update`) is kept, and
so are `notes`: entries tagged `tech` that agents write (gridgit.scratchpad.state_links adds
them as they are written). Refreshed when a phase completes, when a recorded commit changes a
manifest, and by `gridgit memory rebuild`; the same files give the same stack.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import PurePosixPath
from typing import Any

from gridgit.errors import GridError
from gridgit.model import state
from gridgit.store import gitcmd, notices
from gridgit.store.layout import Layout

MANIFESTS = ("pyproject.toml", "requirements.txt", "package.json", "go.mod", "Cargo.toml")
MAX_MANIFESTS = 20
MAX_PACKAGES = 100
MAX_LANGUAGES = 10
# What the stack holds that gridgit works out itself (the rest is a person's or an agent's).
DETECTED = ("languages", "manifests", "added_packages", "skipped")
LANGUAGES = {
    ".py": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
    ".ts": "TypeScript", ".tsx": "TypeScript", ".go": "Go", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin",
    ".rb": "Ruby", ".php": "PHP", ".cs": "C#", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".hpp": "C++",
    ".swift": "Swift", ".scala": "Scala", ".sh": "Shell", ".sql": "SQL", ".html": "HTML", ".css": "CSS",
    ".scss": "CSS", ".vue": "Vue", ".svelte": "Svelte", ".dart": "Dart", ".ex": "Elixir", ".exs": "Elixir",
    ".lua": "Lua", ".r": "R", ".m": "Objective-C", ".zig": "Zig",
}  # fmt: skip
# A PEP 508 requirement's name (`requests[socks]>=2; python_version<'3.11'` -> requests).
_REQUIREMENT_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def is_manifest(path: str) -> bool:
    return PurePosixPath(path).name in MANIFESTS


def _toml(text: str) -> dict[str, Any]:
    from gridgit.store import tomlread

    found: dict[str, Any] = tomlread.reader().loads(text)
    return found


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _requirements(values: Any) -> list[str]:
    found = [_REQUIREMENT_RE.match(v) for v in values if isinstance(v, str)] if isinstance(values, list) else []
    return [m.group(1) for m in found if m]


def read_manifest(name: str, text: str) -> tuple[str | None, list[str]]:
    """(runtime, packages) a manifest of file NAME says; ValueError (and TOML's, JSON's) when it does not parse."""
    if name == "package.json":
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        node = _mapping(data.get("engines")).get("node")
        node = node if isinstance(node, str) else None
        deps = _mapping(data.get("dependencies"))
        return (f"node{node}" if node and node[0] in "<>=~^" else f"node {node}" if node else None), list(deps)
    if name == "go.mod":
        version = re.search(r"^go\s+(\S+)", text, re.MULTILINE)
        block = re.findall(r"^require\s*\(\s*$(.*?)^\)", text, re.MULTILINE | re.DOTALL)
        single = re.findall(r"^require[ \t]+([^\s(]\S*)[ \t]+\S+", text, re.MULTILINE)
        listed = [line.split()[0] for part in block for line in part.splitlines() if line.split()]
        return (f"go {version.group(1)}" if version else None), [p for p in listed + single if not p.startswith("//")]
    if name == "requirements.txt":
        lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
        return None, _requirements([line for line in lines if line and not line.startswith("-")])
    data = _toml(text)
    if name == "Cargo.toml":
        package = _mapping(data.get("package"))
        edition = package.get("rust-version") or package.get("edition")
        deps = _mapping(data.get("dependencies"))
        return (f"rust {edition}" if isinstance(edition, str) else None), list(deps)
    project = _mapping(data.get("project"))
    python = project.get("requires-python")
    poetry = _mapping(_mapping(data.get("tool")).get("poetry")).get("dependencies")
    extra = [p for p in poetry if p != "python"] if isinstance(poetry, dict) else []
    return (f"python{python}" if isinstance(python, str) else None), _requirements(project.get("dependencies")) + extra


def detect(layout: Layout, previous: dict[str, Any], phase_id: str | None) -> dict[str, Any]:
    """The stack's detected keys (DETECTED, and `runtime` while PREVIOUS has none) from the tracked files.

    A package PREVIOUS lists keeps the phase it was added in; a new one is PHASE_ID's.
    """
    files = [f for f in gitcmd.run(layout.root, "ls-files", "-z").split("\0") if f]
    counts: dict[str, int] = {}
    for path in files:
        language = LANGUAGES.get(os.path.splitext(path)[1].lower())
        if language:
            counts[language] = counts.get(language, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:MAX_LANGUAGES]
    manifests = sorted((f for f in files if is_manifest(f)), key=lambda f: (f.count("/"), f))[:MAX_MANIFESTS]
    known = {p.get("name"): p for p in previous.get("added_packages") or [] if isinstance(p, dict)}
    found: dict[str, Any] = {"languages": dict(ranked), "manifests": manifests, "added_packages": [], "skipped": []}
    runtime = None
    for path in manifests:
        try:
            with open(layout.root / path, encoding="utf-8") as handle:
                said, packages = read_manifest(PurePosixPath(path).name, handle.read())
        except (OSError, UnicodeDecodeError, ValueError) as exc:  # TOML's and JSON's errors are ValueErrors
            reason = " ".join(str(exc).split())[:160] or type(exc).__name__
            found["skipped"].append({"path": path, "reason": reason})
            notices.warn("gridgit.memory", f"gridgit: warning: tech stack: {path} skipped ({reason})")
            continue
        runtime = runtime or said
        for name in packages:
            if len(found["added_packages"]) < MAX_PACKAGES and name not in {p["name"] for p in found["added_packages"]}:
                before = known.get(name) or {}
                found["added_packages"].append(
                    {"name": name, "added_phase": before.get("added_phase") or phase_id, "source": path}
                )
    if runtime and not previous.get("runtime"):
        found["runtime"] = runtime
    return found


def refresh(layout: Layout, phase_id: str | None = None) -> bool:
    """Bring STATE's tech stack up to date with the tracked files (see the module); True when it changed.

    PHASE_ID is the phase new packages were added in (default: STATE's current). gridgit's own
    bookkeeping: no agent's STATE permission is needed. A git that fails changes nothing.
    """

    def change(st: dict[str, Any]) -> dict[str, Any]:
        stack = (st.get("persistent") or {}).get("tech_stack")
        stack = stack if isinstance(stack, dict) else {}
        found = detect(layout, stack, phase_id or state.current_phase(st))
        changed = {k: v for k, v in found.items() if stack.get(k) != v}
        return {"persistent": {"tech_stack": changed}} if changed else {}

    try:
        return state.update_with(layout, change, "system", "tech stack", check_permission=False) is not None
    except GridError as exc:
        notices.warn("gridgit.memory", f"gridgit: warning: tech stack not refreshed ({exc})")
        return False
