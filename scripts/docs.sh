#!/usr/bin/env bash
# The docs site: `bash scripts/docs.sh` builds it into target/site (strict: a dead link fails),
# `bash scripts/docs.sh serve` serves it on 127.0.0.1:8000 and rebuilds on every change.
# The tools come with `pip install -e '.[dev]'` (scripts/setup.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
# The reference pages read this tree's package (its docstrings, its commands' --help).
export PYTHONPATH="$ROOT/python/src${PYTHONPATH:+:$PYTHONPATH}"
# mkdocs-material prints its end-of-life notice (May 2027) on every build: docs/development.md, not a finding.
export NO_MKDOCS_2_WARNING=1
if [[ "${1:-build}" == "serve" ]]; then
  exec "$PY" -m mkdocs serve --strict --dev-addr 127.0.0.1:8000
fi
exec "$PY" -m mkdocs build --strict
