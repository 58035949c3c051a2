"""yamlscalar: each scalar spelled as PyYAML spells it, quoted exactly when PyYAML would quote it."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gridgit.store import frontmatter, yamlfast, yamlscalar
from tests.store.test_yamlfast import NASTY, WORDS


@settings(max_examples=500, deadline=None)
@given(text=st.one_of(st.sampled_from(WORDS), st.text(alphabet=st.sampled_from(NASTY), min_size=1, max_size=14)))
def test_strings_are_quoted_exactly_when_pyyaml_would_read_them_as_another_type(text: str) -> None:
    assume(yamlscalar.printable(text))  # the only strings dump writes itself
    resolved = yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False))
    if text:
        assert yamlscalar.resolves(text) == (resolved != "tag:yaml.org,2002:str")


def test_pyyaml_resolves_no_other_types_than_the_fast_path_knows() -> None:
    # A PyYAML release that adds an implicit type must fail here, not quietly mis-quote a string.
    tags = {tag for resolvers in yaml.SafeDumper.yaml_implicit_resolvers.values() for tag, _ in resolvers}
    known = {"bool", "float", "int", "merge", "null", "timestamp", "value", "yaml"}
    assert tags == {f"tag:yaml.org,2002:{name}" for name in known}


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("2026-12-03T13:27:00Z", "'2026-12-03T13:27:00Z'"),
        (".grid/phases/01-x/scratchpad_archived.md", ".grid/phases/01-x/scratchpad_archived.md"),
        ("cli-12", "cli-12"),
        ("01-02", "01-02"),
        ("123", "'123'"),
        ("1.5", "'1.5'"),
        ("1_000", "'1_000'"),
        ("0x1f", "'0x1f'"),
        ("1:20", "'1:20'"),
        ("09", "09"),
        ("yes", "'yes'"),
        ("Off", "'Off'"),
        ("~", "'~'"),
        ("", "''"),
        ("a: b", "'a: b'"),
        ("a #b", "'a #b'"),
        (" a", "' a'"),
        ("it's", "it's"),
        ("'quoted'", "'''quoted'''"),
        ("héllo", "héllo"),
        (1.0, "1.0"),
        (None, "null"),
        (True, "true"),
    ],
)
def test_scalars_are_written_as_pyyaml_writes_them(value: object, written: str) -> None:
    data = {"k": value, "l": [value, 1]}
    assert yamlfast.dump(data) == frontmatter.pyyaml_dump(data)
    assert yamlfast.dump({"k": value}) == f"k: {written}\n"
    assert yamlfast.load(f"k: {written}\n") == {"k": value}
