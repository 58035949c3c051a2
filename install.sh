#!/bin/sh
# Create .venv and install gridgit into it with its development tools.
# Usage: ./install.sh            (idempotent; re-run after pulling)
set -eu
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[dev,mcp]"
# pip byte-compiles what it installs, but not an editable install's sources; without the
# cache (and with PYTHONDONTWRITEBYTECODE set, as on many CI machines) every gridgit call
# and every git hook would recompile them: ~20 ms each time.
.venv/bin/python -m compileall -q gridgit templates
echo "gridgit installed: $(.venv/bin/gridgit --version)"
