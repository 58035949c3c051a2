"""yamlfast: byte-identical to PyYAML where it answers, None (PyYAML decides) everywhere else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gridgit.errors import BadInput
from gridgit.store import frontmatter, yamlfast
from gridgit.store.layout import Layout
from tests.conftest import Repo

# fmt: off
WORDS = [
    "yes", "No", "on", "OFF", "null", "NULL", "~", "true", "False", "1e3", "0o7", ".inf", "-.Inf", ".NaN",
    "<<", "=", "!", "&", "*", "---", "...", "123", "-5", "+1", "09", "0", "1.5", "1.0", ".5", "1_000", "0x1f",
    "0b101", "1:20", "190:20:30.15", "01-02", "1.0e+3", "2026-01-24", "a:b", "?a", ":a", "-a",
    "2026-01-24T14:30:00Z", "2026-1-2 3:04:05", "2026-01-24 14:30:00.5 +02:00", "", "- a", "a: b", "a #b",
    "a#b", " a", "a ", "a  b", "it's", 'say "hi"', "auth", "cli-12", "executor-003", "Auth and sessions",
    ".grid/phases/01-x/scratchpad_archived.md", "héllo wörld", "x" * 130,
]
# fmt: on
NASTY = [*":#'\"-?[]{},&*!|>%@` \n\t\r0123456789._+~<=aeEbxTZ", "é", "中", "😀", "\u2028", "\x85", "\xa0", "\ufeff"]
strings = st.one_of(st.sampled_from(WORDS), st.text(alphabet=st.sampled_from(NASTY), max_size=12), st.text(max_size=6))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    strings,
)
keys = st.one_of(strings, strings, st.integers(), st.booleans())
trees = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=16,
)
# The same shapes within what the fast path writes itself (printable strings, str keys), so
# most examples exercise it rather than the fallback.
PRINTABLE = [c for c in NASTY if c.isprintable() and c not in "\xa0\ufeff😀"] + ["é", "中", "a", "b"]
friendly_strings = st.one_of(st.sampled_from(WORDS), st.text(alphabet=st.sampled_from(PRINTABLE), max_size=12))
friendly_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), friendly_strings)
friendly_keys = friendly_strings.filter(bool)
friendly_trees = st.recursive(
    friendly_scalars,
    lambda inner: (
        st.lists(inner.filter(lambda item: not isinstance(item, list)), max_size=4)
        | st.dictionaries(friendly_keys, inner, max_size=4)
    ),
    max_leaves=20,
)
mappings = st.one_of(
    st.dictionaries(keys, trees, min_size=1, max_size=6),
    st.dictionaries(friendly_keys, friendly_trees, min_size=1, max_size=6),
)
HEADER = "# ═══\n# GRID STATE - a header\n# ═══\n"


@settings(max_examples=400, deadline=None)
@given(data=mappings, header=st.sampled_from(["", HEADER]))
def test_dump_and_load_are_none_or_what_pyyaml_does(data: dict[Any, Any], header: str) -> None:
    expected = frontmatter.pyyaml_dump(data)
    fast = yamlfast.dump(data)
    assert fast is None or fast == expected
    text = header + expected
    loaded = yamlfast.load(text)
    assert loaded is None or loaded == frontmatter.pyyaml_load(text, "x.md")
    if fast is not None:  # what the fast path writes, it reads: gridgit's own files stay on it
        assert loaded == data


@settings(max_examples=250, deadline=None)
@given(data=mappings, at=st.integers(min_value=0), cut=st.integers(0, 3), insert=st.sampled_from([*NASTY, "  ", "\n"]))
def test_an_edited_text_loads_as_pyyaml_reads_it_or_not_at_all(
    data: dict[Any, Any], at: int, cut: int, insert: str
) -> None:
    text = frontmatter.pyyaml_dump(data)
    at %= len(text)
    edited = text[:at] + insert + text[at + cut :]
    fast = yamlfast.load(edited)
    try:
        expected = frontmatter.pyyaml_load(edited, "x.md")
    except BadInput:
        assert fast is None  # what PyYAML refuses, the fast path never reads
    else:
        assert fast is None or fast == expected


@settings(max_examples=200, deadline=None)
@given(
    data=mappings, comments=st.lists(st.text(alphabet=st.characters(exclude_characters="\n"), max_size=8), max_size=3)
)
def test_comment_lines_are_read_as_pyyaml_reads_them(data: dict[Any, Any], comments: list[str]) -> None:
    # A CR, U+0085 or U+2028 ends a comment line for YAML; a control character is refused.
    text = "".join(f"#{comment}\n" for comment in comments) + frontmatter.pyyaml_dump(data)
    fast = yamlfast.load(text)
    try:
        expected = frontmatter.pyyaml_load(text, "x.md")
    except (BadInput, UnicodeError):  # libyaml cannot even encode a lone surrogate
        assert fast is None
    else:
        assert fast is None or fast == expected


@pytest.mark.parametrize("comment", ["#x\u2028a: 1\n", "#x\ra: 1\n", "#x\x85a: 1\n", "#\x01\n", "# ═══ 😀\t\n"])
def test_a_line_break_or_refused_character_in_a_comment_goes_to_pyyaml(comment: str) -> None:
    text = comment + "b: 2\n"
    assert _outcome(frontmatter.load_yaml, text) == _outcome(frontmatter.pyyaml_load, text)


@settings(max_examples=150, deadline=None)
@given(meta=mappings, body=st.text(max_size=40))
def test_render_then_parse_round_trips(meta: dict[Any, Any], body: str) -> None:
    parsed, parsed_body = frontmatter.parse(frontmatter.render(meta, body, HEADER), "x.md")
    assert parsed == meta
    assert parsed_body == body


@pytest.mark.parametrize(
    "data",
    [
        {"f": 1e17},
        {"f": float("inf")},
        {1: "int key"},
        {"k" * 128: 1},
        {"": 1},
        {"l": [[1, 2]]},
        {"s": "tab\there"},
        {"s": "line\nbreak"},
        {"s": "😀"},
        {"i": 10**30},
        {"t": (1, 2)},
        {"\ud800": 1},
        {"k": "\ud800"},
        {"d": {"deep": {"er": {"and": {"deeper": 1}}}}, "x": [{"y": [{"z": {}}]}]},
    ],
)
def test_what_the_fast_path_cannot_promise_goes_to_pyyaml(data: dict[Any, Any]) -> None:
    fast = yamlfast.dump(data)
    if fast is not None:  # the last case is supported: nesting within the depth limit
        assert fast == frontmatter.pyyaml_dump(data)
        return
    assert _dumped(frontmatter.dump_yaml, data) == _dumped(frontmatter.pyyaml_dump, data)


def _dumped(dump: Any, data: Any) -> object:
    try:
        return dump(data)
    except (yaml.YAMLError, UnicodeError) as exc:  # PyYAML's own refusal, whichever way it comes
        return type(exc)


def _yaml_of(path: Path) -> str:
    return frontmatter.split(path.read_text(encoding="utf-8"))[0]


def test_gridgits_own_files_take_the_fast_path(repo: Repo, board: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from gridgit.coordination import conflicts

    monkeypatch.setenv("GRID_AGENT_ID", "executor-001")
    board.subscribe(["auth", "db"], agent="recognizer-001")
    board.subscribe(["*"], relevance_min="HIGH", agent="memory-001")
    for i in range(12):
        board.write(
            "discovery",
            f"topic-{i % 3}",
            f"finding {i}: it's 'quoted' # not a comment",
            agent=f"executor-00{i % 2 + 1}",
        )
    board.write("blocker", "auth", "Blocked: the token: expires", relevance="HIGH", agent="executor-002")
    board.register_agent("executor-003", task="build: the API", agent="mc")
    layout = Layout.find(repo.path)
    conflicts.record_modification(layout, "src/a.py", "executor-001")
    conflicts.record_modification(layout, "src/a.py", "executor-002")
    board.complete_phase("01-foundation", "02-core", agent="mc")
    files = [
        repo.grid / "STATE.md",
        repo.grid / "CHECKPOINT.md",
        repo.grid / "phases" / "01-foundation" / "scratchpad_archived.md",
        repo.grid / "phases" / "02-core" / "scratchpad.md",
    ]
    for path in files:
        text = _yaml_of(path)
        assert yamlfast.load(text) is not None, path
        assert yamlfast.load(text) == frontmatter.pyyaml_load(text, str(path))
    assert "subscriptions:\n- agent_id: recognizer-001\n  topics: [auth, db]" in _yaml_of(files[-1])
    assert "topics: ['*']" in _yaml_of(files[-1])


def test_a_full_scratchpad_takes_the_fast_path(repo: Repo, board: Any) -> None:
    for i in range(30):
        board.write("decision", f"t{i % 7}", f"decision {i}", relevance="LOW", agent="executor-001")
    text = _yaml_of(repo.grid / "phases" / "01-foundation" / "scratchpad.md")
    assert yamlfast.load(text) == frontmatter.pyyaml_load(text, "scratchpad.md")


CANONICAL = """\
# a header
phase_id: 01-x
index:
  entry_count: 2
  by_topic:
    auth: [1, 2]
  recent: [2, 1]
subscriptions:
- agent_id: cli-1
  topics: ['*']
archive:
  last_archive: null
"""


@pytest.mark.parametrize(
    ("edit", "fast"),
    [
        (lambda t: t, True),
        (lambda t: t.replace("  entry_count: 2\n", "  entry_count: 2  # two\n"), False),
        (lambda t: t.replace("archive:\n", "# archive next\narchive:\n"), False),
        (lambda t: t.replace("auth: [1, 2]", "auth: [ 1,2 ]"), False),
        (lambda t: t.replace("phase_id: 01-x", "phase_id:   01-x"), False),
        (
            lambda t: t.replace("  last_archive: null", "  {last_archive: null}").replace(
                "archive:\n  {", "archive: {"
            ),
            False,
        ),
        (lambda t: t.replace("\n  ", "\n    "), False),  # a list's mapping then breaks: the same error
        (lambda t: t.replace("\n  ", "\n    ").replace("\n    topics", "\n  topics"), False),
        (lambda t: t.replace("- agent_id: cli-1\n  topics", "  - agent_id: cli-1\n    topics"), False),
        (lambda t: t.replace("recent: [2, 1]\n", "recent: [2, 1]\n  entry_count: 3\n"), False),  # a duplicate key
        (lambda t: t.replace("null", "~"), False),
        (lambda t: t.replace("'*'", '"*"'), False),
        (lambda t: t.replace("auth: [1, 2]", "auth:\n    - 1\n    - 2"), False),
        (lambda t: t.replace("phase_id: 01-x\n", "") + "phase_id: 01-x\n", True),  # reordered keys
        (lambda t: t.replace("auth: [1, 2]", "auth: [1, 2, 7]"), True),  # a stale index is still canonical
        (lambda t: t + "\n", False),
        (lambda t: t.replace("\n", "\r\n"), False),
    ],
)
def test_hand_edits_load_as_pyyaml_reads_them(edit: Any, fast: bool) -> None:
    text = edit(CANONICAL)
    assert (yamlfast.load(text) is not None) == fast
    assert _outcome(frontmatter.load_yaml, text) == _outcome(frontmatter.pyyaml_load, text)


def _outcome(load: Any, text: str) -> object:
    """What LOAD makes of TEXT: the value, or the error message."""
    try:
        return load(text, "x.md")
    except BadInput as exc:
        return str(exc)


def test_errors_aliases_and_depth_stay_pyyamls() -> None:
    with pytest.raises(BadInput, match=r"x.md line 4: "):
        frontmatter.load_yaml("a: 1\nb: [1, 2\nc: 3\n", "x.md")
    with pytest.raises(BadInput, match="aliases"):
        frontmatter.load_yaml("a: &x [1]\nb: *x\n", "x.md")
    deep = "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 80)) + "  " * 80 + "v: 1\n"
    with pytest.raises(BadInput, match="nested more than"):
        frontmatter.load_yaml(deep, "x.md")
    assert frontmatter.load_yaml("t: 2026-01-24T14:30:00Z\n", "x.md") == {"t": "2026-01-24T14:30:00Z"}


_NO_YAML = """
import sys
from pathlib import Path
from gridgit.store import frontmatter
assert "yaml" not in sys.modules, "import"
for name in sys.argv[1:]:
    text = Path(name).read_text(encoding="utf-8")
    meta, _ = frontmatter.parse(text, name)
    frontmatter.render(meta, "body\\n")
assert "yaml" not in sys.modules, "parse"
"""


def test_reading_and_writing_gridgits_own_files_never_imports_yaml(repo: Repo, board: Any) -> None:
    board.write("discovery", "auth", "found it", agent="executor-001")
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    proc = subprocess.run(
        [sys.executable, "-c", _NO_YAML, str(repo.grid / "STATE.md"), str(pad)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
