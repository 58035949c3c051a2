#!/bin/sh
# Create .venv and install gridgit into it with its development tools.
# Usage: ./install.sh            (idempotent; re-run after pulling)
# pip's and the build's own output goes to .venv/install.log; it is shown only when a step fails.
set -eu
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
log=.venv/install.log
: >"$log"

# Run a step with its output in the log; on failure show the log's end and stop with its exit code.
step() {
    what=$1
    shift
    status=0
    "$@" >>"$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        echo "install.sh: $what failed (exit $status); the end of $log:" >&2
        tail -n 40 "$log" >&2
        exit "$status"
    fi
}

step "upgrading pip" .venv/bin/python -m pip install --upgrade pip
# The dev tools are a dependency group (PEP 735), which pip installs from 25.1 on (upgraded above).
step "installing gridgit and its dev tools" .venv/bin/python -m pip install -e ".[mcp]" --group dev
# pip byte-compiles what it installs, but not an editable install's sources; without the
# cache (and with PYTHONDONTWRITEBYTECODE set, as on many CI machines) every gridgit call
# and every git hook would recompile them: ~20 ms each time.
step "byte-compiling gridgit" .venv/bin/python -m compileall -q gridgit templates
warnings=$(grep -ci "warning" "$log" || true)
echo "gridgit installed: $(.venv/bin/gridgit --version) in .venv ($warnings warning line(s) from pip and the build in $log)"
