"""YAML frontmatter + markdown body: split and joined losslessly, loaded only safely."""

from __future__ import annotations

import functools

from gridgit.errors import BadInput
from gridgit.store import yamlfast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import yaml


@functools.cache
def _pyyaml() -> tuple[type[yaml.CSafeLoader], type[yaml.CSafeDumper]]:
    """PyYAML's loader and dumper as gridgit configures them, built on first use.

    Files gridgit wrote itself never get here (`yamlfast` reads and writes them), so a git
    hook or the status line does not pay the 15-20 ms of importing yaml.
    """
    try:  # libyaml's C loader/dumper are several times faster; fall back where it is missing.
        from yaml import CSafeDumper as BaseDumper
        from yaml import CSafeLoader as BaseLoader
    except ImportError:  # pragma: no cover - depends on how PyYAML was built
        from yaml import SafeDumper as BaseDumper  # type: ignore[assignment]
        from yaml import SafeLoader as BaseLoader  # type: ignore[assignment]

    class Loader(BaseLoader):
        """Safe loader that keeps timestamps as the strings the spec writes."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in BaseLoader.yaml_implicit_resolvers.items()
    }

    class Dumper(BaseDumper):
        """Block style, except that lists of scalars stay on one line (`auth: [1, 5, 12]`)."""

        def ignore_aliases(self, data: Any) -> bool:
            return True  # never write `&id001` / `*id001`: gridgit refuses aliases when it reads

    def represent_list(dumper: BaseDumper, data: list[Any]) -> yaml.Node:
        flow = all(not isinstance(item, (dict, list)) for item in data)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)

    Dumper.add_representer(list, represent_list)
    return Loader, Dumper


DELIMITER = "---"


def split(text: str) -> tuple[str, str]:
    """Split TEXT into (yaml text, body); a text without frontmatter has empty yaml."""
    if not text.startswith(DELIMITER + "\n"):
        return "", text
    end = text.find("\n" + DELIMITER + "\n", len(DELIMITER))
    if end == -1:
        if text.endswith("\n" + DELIMITER):
            return text[len(DELIMITER) + 1 : -len(DELIMITER)], ""
        raise BadInput("frontmatter has no closing '---' line")
    return text[len(DELIMITER) + 1 : end + 1], text[end + len(DELIMITER) + 2 :]


def load_yaml(yaml_text: str, source: str, line_offset: int = 1) -> Any:
    """Load YAML safely; an error names SOURCE and the line in the whole file."""
    data = yamlfast.load(yaml_text)
    return pyyaml_load(yaml_text, source, line_offset) if data is None else data


def pyyaml_load(yaml_text: str, source: str, line_offset: int = 1) -> Any:
    """load_yaml through PyYAML alone: anything yamlfast does not read back exactly."""
    import yaml

    try:
        data = yaml.load(yaml_text, Loader=_pyyaml()[0])
    except RecursionError:
        raise BadInput(f"{source}: YAML nested too deeply") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f" line {mark.line + 1 + line_offset}" if mark is not None else ""
        raise BadInput(f"{source}{line}: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise BadInput(f"{source}: {str(exc).splitlines()[0]}") from None
    _refuse_aliases(data, source)
    return data


MAX_DEPTH = 64


def _refuse_aliases(data: Any, source: str) -> None:
    """Refuse a mapping or list that appears twice (an `*alias`) and nesting past MAX_DEPTH.

    gridgit never writes aliases; a hand-written or merged-in "billion laughs" (aliases of
    aliases) loads small but expands to gigabytes when shown or merged. Each container is
    visited once, so a bomb is found in the time of its few real nodes.
    """
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        if id(node) in seen:
            raise BadInput(f"{source}: YAML aliases (`*name`) are not allowed in .grid files")
        if depth > MAX_DEPTH:
            raise BadInput(f"{source}: YAML nested more than {MAX_DEPTH} levels deep")
        seen.add(id(node))
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children)


def parse(text: str, source: str) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body) of TEXT; anything but a mapping is an error naming SOURCE."""
    yaml_text, body = split(text)
    if not yaml_text.strip():
        raise BadInput(f"{source} line 1: missing YAML frontmatter")
    meta = load_yaml(yaml_text, source)
    if not isinstance(meta, dict):
        raise BadInput(f"{source} line 2: frontmatter must be a mapping, not {type(meta).__name__}")
    return meta, body


def body_line(text: str, body: str) -> int:
    """The line of TEXT on which BODY (its tail, as split or parse returned it) starts."""
    return text.count("\n", 0, len(text) - len(body)) + 1


def dump_yaml(data: Any) -> str:
    """Block-style YAML with scalar lists inline (`auth: [1, 5]`), as the spec writes it."""
    fast = yamlfast.dump(data)
    return pyyaml_dump(data) if fast is None else fast


def pyyaml_dump(data: Any) -> str:
    """dump_yaml through PyYAML alone: the bytes yamlfast.dump must match."""
    import yaml

    return yaml.dump(
        data,
        Dumper=_pyyaml()[1],
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,
    )


def render(meta: dict[str, Any], body: str, header: str = "") -> str:
    """Join META and BODY into one file; HEADER is comment lines kept at the top of the YAML."""
    return f"{DELIMITER}\n{header}{dump_yaml(meta)}{DELIMITER}\n{body}"
