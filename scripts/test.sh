#!/usr/bin/env bash
# Full test run: set-up, Scala tests (core + spark), Python tests.
# Extra arguments are passed to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"

bash scripts/setup.sh
scripts/sbt test

"$PY" -m pytest -q tests "$@"
