#!/usr/bin/env bash
# Builds the jar of each Spark line into python/src/subjxform/jars/subjxform-spark-<line>_<scala>.jar,
# skipping the jars that are newer than every source and build file. The lines: the one list,
# python/src/subjxform/data/spark-lines.tsv (scripts/spark-lines.sh).
# Every line to build goes to ONE sbt session (build.sbt's `jarLines`): one JVM start, a compiler that
# stays warm from line to line, and the Spark-free engine compiled once per Scala version (2.12, 2.13)
# for all the lines that share it; only each line's thin Catalyst layer is compiled per line.
#   bash scripts/build-jars.sh                 every line
#   bash scripts/build-jars.sh LINE ...        only these (e.g. 4.2_2.13)
#   SUBJXFORM_FORCE_JAR=1                      rebuild even when up to date
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
source scripts/spark-lines.sh

if [[ $# -gt 0 ]]; then
  lines=("$@")
else
  read -r -a lines <<<"$SPARK_LINES"
fi

todo=()
for line in "${lines[@]}"; do
  spark="${line%_*}"; scala="${line#*_}"
  jar="python/src/subjxform/jars/subjxform-spark-${spark}_${scala}.jar"
  # The default line's build also drops the Scala library the command line runs with (build.sbt).
  if [[ -s "$jar" && -z "${SUBJXFORM_FORCE_JAR:-}" ]] \
     && { [[ "$line" != "$DEFAULT_LINE" ]] || compgen -G 'python/src/subjxform/jars/scala-library-*.jar' >/dev/null; }; then
    newer="$(find jvm/core/src/main jvm/spark/src/main build.sbt version.txt project -newer "$jar" -type f \
               -not -path '*/target/*' -print -quit 2>/dev/null || true)"
    if [[ -z "$newer" ]]; then echo "build-jars: $jar is up to date"; continue; fi
  fi
  # A line whose compile-time jars come from its pyspark package (not in the Maven repository reached).
  if [[ "${LINE_JARS[$line]}" == pyspark ]]; then bash scripts/spark-jars.sh "${LINE_SPARK[$line]}"; fi
  todo+=("$line")
done
[[ ${#todo[@]} -eq 0 ]] && exit 0

start=$SECONDS
echo "build-jars: building ${#todo[@]} jar(s) in one sbt session: ${todo[*]}"
echo "build-jars: (about 30 s to start sbt, then per line: the engine once per Scala version, the Spark layer" \
     "each time; sbt's [info] lines say what it compiles)"
scripts/sbt "jarLines ${todo[*]}"
echo "build-jars: ${#todo[@]} jar(s) in $((SECONDS - start)) s"
