#!/usr/bin/env bash
# Lint and format of the Python tree (the package, the tests, the benchmarks): ruff, with the rule set and
# its reasons in pyproject.toml; then the package's types: mypy, with its settings in pyproject.toml
# ([tool.mypy]). Seconds; scripts/test.sh runs it first, so CI fails on a finding.
#   bash scripts/lint.sh          check (exit 1 on a finding, a file ruff would reformat or a type error)
#   bash scripts/lint.sh --fix    fix what ruff can and reformat, then check (mypy fixes nothing)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
if [[ "${1-}" == "--fix" ]]; then
  "$PY" -m ruff check --fix --quiet . || true
  "$PY" -m ruff format --quiet .
fi
"$PY" -m ruff check .
"$PY" -m ruff format --check .
"$PY" -m mypy
echo "lint: ruff check, ruff format --check and mypy: clean"
