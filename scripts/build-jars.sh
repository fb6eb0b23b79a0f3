#!/usr/bin/env bash
# Builds the jar of each Spark line into python/src/subjxform/jars/subjxform-spark-<line>_<scala>.jar,
# skipping the jars that are newer than every source and build file. The lines are the Python
# package's (subjxform.session.LINES; project/SparkLines.scala has the same, tests check it).
#   bash scripts/build-jars.sh                 every line
#   bash scripts/build-jars.sh 4.2_2.13 ...    only these
#   SUBJXFORM_FORCE_JAR=1                      rebuild even when up to date
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"

if [[ $# -gt 0 ]]; then
  lines=("$@")
else
  read -r -a lines <<<"$(PYTHONPATH="$ROOT/python/src" "$PY" -c \
    'from subjxform.session import LINES; print(" ".join(f"{s}_{c}" for s, c in LINES))')"
fi

for line in "${lines[@]}"; do
  spark="${line%_*}"; scala="${line#*_}"
  jar="python/src/subjxform/jars/subjxform-spark-${spark}_${scala}.jar"
  # The default line's build also drops the Scala library the command line runs with (build.sbt).
  if [[ -s "$jar" && -z "${SUBJXFORM_FORCE_JAR:-}" ]] \
     && { [[ "$line" != 4.2_2.13 ]] || compgen -G 'python/src/subjxform/jars/scala-library-*.jar' >/dev/null; }; then
    newer="$(find jvm/core/src/main jvm/spark/src/main build.sbt version.txt project -newer "$jar" -type f \
               -not -path '*/target/*' -print -quit 2>/dev/null || true)"
    if [[ -z "$newer" ]]; then echo "build-jars: $jar is up to date"; continue; fi
  fi
  if [[ "$spark" == "4.3" ]]; then bash scripts/spark-jars.sh 4.3.0; fi
  echo "build-jars: building $jar"
  scripts/sbt "-Dspark.version=$spark" "-Dscala.binary=$scala" jar
done
