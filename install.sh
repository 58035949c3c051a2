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
.venv/bin/python -m pip install --quiet -e ".[dev]"
echo "gridgit installed: $(.venv/bin/gridgit --version)"
