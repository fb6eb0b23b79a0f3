#!/usr/bin/env bash
# Idempotent set-up: editable install of the Python package (+ test extras) and
# the Scala jar at python/src/subjxform/jars/subjxform.jar.
#   SUBJXFORM_FORCE_JAR=1   rebuild the jar even if it looks up to date
#   PYTHON=...              interpreter to use (default: python3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"

# --- Python package -------------------------------------------------------
want_version="$(tr -d '[:space:]' < version.txt)"
if "$PY" - "$want_version" "$ROOT" <<'PYEOF' 2>/dev/null
import sys, importlib.metadata as md, importlib.util, os
want, root = sys.argv[1], sys.argv[2]
assert md.version("subjxform") == want
assert md.version("pyspark") == "4.2.0"
for m in ("pytest", "pyarrow", "pandas", "matplotlib", "grpc", "zstandard"):
    assert importlib.util.find_spec(m) is not None, m
spec = importlib.util.find_spec("subjxform")
assert spec and os.path.realpath(spec.origin).startswith(os.path.realpath(os.path.join(root, "python", "src")))
PYEOF
then
  echo "setup: python package subjxform $want_version already installed (editable)"
else
  echo "setup: pip install -e '.[test,demo]'"
  PIP_ROOT_USER_ACTION=ignore "$PY" -m pip install -q -e '.[test,demo]'
fi

# --- Scala jar --------------------------------------------------------------
JAR=python/src/subjxform/jars/subjxform.jar
stale=1
if [[ -s "$JAR" && -z "${SUBJXFORM_FORCE_JAR:-}" ]]; then
  newer="$(find jvm build.sbt version.txt project -newer "$JAR" -type f \
             \( -name '*.scala' -o -name '*.java' -o -name '*.sbt' -o -name '*.properties' \
                -o -name 'version.txt' -o -name 'repositories' -o -path '*/src/main/resources/*' \) \
             -not -path '*/target/*' -not -path '*/src/test/*' -print -quit 2>/dev/null || true)"
  if [[ -z "$newer" ]]; then stale=0; fi
fi
if [[ $stale == 1 ]]; then
  echo "setup: building $JAR"
  "$ROOT/scripts/sbt" jar
else
  echo "setup: $JAR is up to date"
fi
