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
# The Python API module again, as a Spark Connect client of a server started with the jar.
SUBJXFORM_SPARK_MODE=connect "$PY" -m pytest -q tests/test_functions.py tests/test_streams.py tests/test_runtime_errors.py tests/test_accounts.py "$@"
