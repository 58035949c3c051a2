"""The package's shape: imports point down the layers of DESIGN.md, and no module imports itself back.

Every import counts, at the top of a module or inside a function (a lazy import hides a
cycle from Python, not from a reader), and `if TYPE_CHECKING:` ones too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tomllib

import gridgit

PACKAGE = Path(gridgit.__file__).parent

# The first name under gridgit -> its layer (docs/architecture.md). A module may import from
# its own layer or a lower one, never from a higher one.
LAYERS = {
    "errors": 0,
    "store": 0,
    "templates": 0,
    "model": 1,
    "events": 1,
    "scratchpad": 1,
    "phases": 2,
    "coordination": 2,
    "validation": 2,
    "memory": 2,
    "work": 2,
    "git": 3,
    "history": 3,
    "watch": 3,
    "setup": 3,
    "views": 3,
    "demo": 3,
    "agents": 3,
    "search": 3,
    "api": 4,
    "blackboard": 4,
    "cli": 4,
    "serve": 4,
    "mcp": 4,
    "hookrun": 4,
    "merge_driver": 4,
    "__init__": 4,
    "__main__": 4,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """The gridgit modules PATH imports (a `from pkg import name` names a module when one exists)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("gridgit"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gridgit"):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in modules else node.module)
    return {m for m in found if m in modules}


def layer(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    assert top in LAYERS, (
        f"{module}: gridgit.{top} has no layer in tests/test_architecture.py (and docs/architecture.md)"
    )
    return LAYERS[top]


def graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(path, modules) - {name} for name, path in modules.items()}


def test_imports_point_down_the_layers() -> None:
    upward = [
        f"{source} (layer {layer(source)}) imports {target} (layer {layer(target)})"
        for source, targets in graph().items()
        for target in sorted(targets)
        if layer(target) > layer(source) and target != "gridgit"
    ]
    assert not upward, "\n".join(upward)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    # The root package only re-exports Blackboard, lazily: importing `gridgit` is not a dependency.
    edges = {name: {t for t in targets if t != "gridgit"} for name, targets in graph().items()}
    cycles = _cycles(edges)
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def test_the_checker_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_subpackage_says_what_it_holds() -> None:
    for init in PACKAGE.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert len(doc.split()) >= 20 and "import" in doc, f"{init}: say what lives here and what it may import"


def test_the_wheel_lists_every_subpackage() -> None:
    pyproject = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    found = {module_name(init) for init in PACKAGE.rglob("__init__.py")}
    assert found <= listed, f"add to pyproject.toml's packages: {sorted(found - listed)}"


def test_the_wheel_carries_every_data_file_of_the_package() -> None:
    # The web view's page.html, page.css and page.js are read at run time: a wheel without them serves nothing.
    import fnmatch

    pyproject = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]
    data = [
        p
        for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]
    missing = [
        str(p.relative_to(PACKAGE))
        for p in data
        if not any(
            fnmatch.fnmatch(p.name, pattern) for pattern in patterns.get(module_name(p.parent / "__init__.py"), [])
        )
    ]
    assert data and not missing, f"add to pyproject.toml's package-data: {missing}"


def test_only_the_serve_command_loads_the_web_view() -> None:
    # The CLI's other commands, the hooks and the daemon must never pay for (or break on) the web view.
    edges = graph()
    importers = sorted(
        source
        for source, targets in edges.items()
        if not source.startswith("gridgit.serve") and any(t.startswith("gridgit.serve") for t in targets)
    )
    assert importers == ["gridgit.cli.serve"]


def test_only_the_mcp_command_loads_the_mcp_sdk() -> None:
    # The SDK costs about a second to import: the CLI's other commands, the hooks and the daemon never pay it.
    # The modules that use it, directly or through each other, are gridgit.mcp's and `gridgit mcp`'s only.
    edges = graph()
    modules = all_modules()
    users = {name for name, path in modules.items() if "mcp" in _top_level_imports(path)}
    while True:
        more = {name for name, targets in edges.items() if targets & users} - users
        if not more:
            break
        users |= more
    assert all(name.startswith("gridgit.mcp") or name == "gridgit.cli.mcp" for name in users), sorted(users)
    assert "gridgit.mcp.server" in users


def _top_level_imports(path: Path) -> set[str]:
    """The top-level packages PATH imports (absolute imports only: gridgit has no relative ones)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def test_no_command_hook_or_daemon_imports_the_mcp_sdk_when_loaded() -> None:
    # The static check above cannot see an import through a third party; this one loads them for real.
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from gridgit.cli import main\n"
        "for name in main.COMMANDS:\n"
        "    if name != 'mcp':\n"
        "        main.cli.get_command(None, name)\n"
        "import gridgit.hookrun, gridgit.git.hookrun, gridgit.watch.daemon, gridgit.blackboard\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"
