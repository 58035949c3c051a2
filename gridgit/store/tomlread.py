"""Reading TOML: the standard library's `tomllib` from Python 3.11, its backport `tomli` (a dependency) before."""

from __future__ import annotations

import sys
from typing import Any


def reader() -> Any:
    """The TOML reader module (`loads`, `TOMLDecodeError`, a ValueError)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    return tomllib
