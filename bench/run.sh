#!/usr/bin/env bash
# subjxform benchmarks, one command.
#
#   bash bench/run.sh [bench.py options]    PySpark end-to-end benchmark -> bench/RESULTS.md
#                                           (default 10M subjects, local[2]; e.g. --rows 2000000)
#   bash bench/run.sh --portable [options]  subjxform.portable (built-ins only) beside the jar and the
#                                           Arrow UDF -> bench/RESULTS-portable.md (bench/portable.py)
#   bash bench/run.sh --jmh [--go FILE]     JMH micro-benchmarks of the engine with -prof gc
#                                           -> bench/JMH.md (FILE: `go test -bench` output of
#                                           nats-server on the same cases, shown side by side)
#
# Needs Java 17 and pyspark 4.2 + pyarrow + pandas (bash scripts/setup.sh installs them).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"

if [[ "${1:-}" == "--jmh" ]]; then
  shift
  go_results=""
  if [[ "${1:-}" == "--go" ]]; then go_results="$2"; shift 2; fi
  mkdir -p target
  "$ROOT/scripts/sbt" "bench/runMain subjxform.bench.OutputSizes $ROOT/target/jmh-output-sizes.tsv" \
    "bench/runMain subjxform.bench.CpuTimeBench $ROOT/target/jmh-cpu.tsv" \
    "bench/Jmh/run -prof gc -rf json -rff $ROOT/target/jmh.json $*"
  "$PY" bench/jmh_report.py target/jmh.json target/jmh-output-sizes.tsv target/jmh-cpu.tsv \
    ${go_results:+--go "$go_results"} --out bench/JMH.md
  exit 0
fi

if [[ "${1:-}" == "--portable" ]]; then   # subjxform.portable beside the jar -> bench/RESULTS-portable.md
  shift
  "$ROOT/scripts/sbt" jar
  PYTHONPATH="$ROOT/python/src${PYTHONPATH:+:$PYTHONPATH}" exec "$PY" bench/portable.py "$@"
fi

"$PY" -c 'import pyspark, pyarrow, pandas' 2>/dev/null || {
  echo "bench/run.sh: pyspark, pyarrow and pandas are needed: run bash scripts/setup.sh" >&2; exit 1; }
"$ROOT/scripts/sbt" jar   # incremental: rebuilds python/src/subjxform/jars/subjxform.jar when needed
PYTHONPATH="$ROOT/python/src${PYTHONPATH:+:$PYTHONPATH}" "$PY" bench/bench.py "$@"
