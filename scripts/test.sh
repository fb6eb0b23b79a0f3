#!/usr/bin/env bash
# Every test: set-up, then the newest Spark line (4.2) in full — Scala tests of core and spark,
# pytest, and the API tests again over Spark Connect — then the compatibility matrix of every other
# line and Java (scripts/test-lines.sh). Extra arguments are passed to the full pytest run.
#   SUBJXFORM_LINES="3.5_2.12"  limit the matrix to some lines ("" skips it)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
start=$SECONDS

bash scripts/setup.sh
bash scripts/lint.sh          # ruff, mypy and scalafmt: lint, types and format (seconds)
bash scripts/build-jars.sh   # every line's jar: the wheel test and the matrix need them all
scripts/sbt test

"$PY" -m pytest -q tests "$@"
# The Python API module again, as a Spark Connect client of a server started with the jar.
SUBJXFORM_SPARK_MODE=connect "$PY" -m pytest -q tests/test_functions.py tests/test_streams.py tests/test_runtime_errors.py tests/test_accounts.py tests/test_groups.py "$@"
# subjxform.portable where no jar is (Databricks serverless / shared access mode): a local session and a
# Spark Connect server, both started without the jar.
SUBJXFORM_SPARK_MODE=nojar "$PY" -m pytest -q tests/test_portable*.py "$@"
SUBJXFORM_SPARK_MODE=nojar-connect "$PY" -m pytest -q tests/test_portable*.py "$@"
echo "test: Spark 4.2 in full: $((SECONDS - start)) s"

if [[ -n "${SUBJXFORM_LINES-all}" ]]; then
  PYTHON="$PY" bash scripts/test-lines.sh
fi
echo "test: all: $((SECONDS - start)) s"
