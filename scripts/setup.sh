#!/usr/bin/env bash
# Idempotent set-up: the default Spark line's jar (python/src/subjxform/jars/subjxform-spark-<line>.jar; the
# lines: python/src/subjxform/data/spark-lines.tsv) and an editable install of the Python package with the test
# tools ('.[dev]') and that line's pyspark, side by side (sbt compiles on one core while pip downloads and
# unpacks); then the nats-server binaries.
#   SUBJXFORM_SETUP_LINES=all   every line's jar, not only the newest (scripts/test.sh: one sbt session)
#   SUBJXFORM_SETUP_LINES=none  no jar (scripts/test.sh builds them after the README's install check)
#   SUBJXFORM_FORCE_JAR=1       rebuild the jar even if it looks up to date
#   PYTHON=...                  interpreter to use (default: python3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
source scripts/steps.sh
source scripts/spark-lines.sh
pyspark_pin="${LINE_PYSPARK[$DEFAULT_LINE]}"

# --- Scala jar, in the background ----------------------------------------------
# The default line's (the demo's and the main test run's), or every line's.
case "${SUBJXFORM_SETUP_LINES:-}" in
  all) lane jars bash scripts/build-jars.sh ;;
  none) lane jars true ;;
  *) lane jars bash scripts/build-jars.sh "$DEFAULT_LINE" ;;
esac

# --- Python package -------------------------------------------------------
want_version="$(tr -d '[:space:]' < version.txt)"
# The install is redone when the package's metadata (pyproject.toml, setup.py) or the pyspark pin changed since.
stamp=".tools/python-install.$( { cat pyproject.toml setup.py version.txt; echo "$pyspark_pin"; } | cksum | cut -d' ' -f1)"
if [[ -f "$stamp" ]] && "$PY" - "$want_version" "$ROOT" "$pyspark_pin" <<'PYEOF' 2>/dev/null
import sys, importlib.metadata as md, importlib.util, os
want, root, pyspark_pin = sys.argv[1], sys.argv[2], sys.argv[3]
assert md.version("subjxform") == want
assert md.version("pyspark") == pyspark_pin
for m in ("pytest", "pyarrow", "pandas", "matplotlib", "grpc", "zstandard", "mkdocs", "material", "mkdocstrings_handlers.python", "ruff", "mypy"):
    assert importlib.util.find_spec(m) is not None, m
spec = importlib.util.find_spec("subjxform")
assert spec and os.path.realpath(spec.origin).startswith(os.path.realpath(os.path.join(root, "python", "src")))
PYEOF
then
  echo "setup: python package subjxform $want_version already installed (editable)"
else
  echo "setup: pip install -e '.[dev]' pyspark[connect]==$pyspark_pin"
  # (the jars are being built beside it: setup.py must not build them a second time)
  SUBJXFORM_NO_JAR_BUILD=1 PIP_ROOT_USER_ACTION=ignore "$PY" -m pip install -q -e '.[dev]' \
    "pyspark[connect]==$pyspark_pin"
  mkdir -p .tools && rm -f .tools/python-install.* && touch "$stamp"
fi

# --- nats-server binaries, one per supported server line ---------------------
# (.tools/nats-server/<line>/bin/nats-server: the per-line golden files and differential tests use them)
PYTHON="$PY" bash scripts/nats-servers.sh
echo "setup: nats-server binaries of every line in .tools/nats-server/"
wait_lanes jars
