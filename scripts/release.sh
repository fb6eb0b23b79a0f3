#!/usr/bin/env bash
# A release in one command: builds into dist/ everything a release publishes, then checks it as a user's
# machine would (scripts/release_check.py: each check with its result and time, then every artifact's size).
#
#   bash scripts/release.sh                        every Spark line: the sdist and the wheel (for the package
#                                                  index) and each line's Maven artifact (for Maven Central)
#   bash scripts/release.sh --check-line 4.2_2.13  CI's check: the wheel, the sdist and that line's Maven
#                                                  artifact only, reusing the jars already built
#   PYTHON=...   the interpreter of the tools' venv, and of a line whose Python is not on the machine
#
# dist/ then holds:
#   subjxform-<version>.tar.gz, subjxform-<version>-py3-none-any.whl
#   maven/io/github/subjxform/subjxform-spark-<spark>_<scala>/<version>/  jar, -sources.jar, -javadoc.jar
#       (scaladoc), .pom; each file with its .md5, .sha1, .sha256 and .sha512, a Maven repository layout
#       ready to upload (after signing: docs/versions.md)
# The checks: twine check; the sdist builds the same wheel; the POMs (metadata, nothing but `provided`
# dependencies); each Maven jar is the wheel's jar for its line; the wheel in a venv without pyspark (the
# command line on Java alone) and beside each line's pyspark, run from outside the source tree (the README's
# first example); `spark-submit --packages ... --repositories file://.../dist/maven` on a 3.5 and a 4.x line.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
start=$SECONDS

source scripts/spark-lines.sh
usage() { echo "usage: bash scripts/release.sh [--check-line SPARK_SCALA]   (e.g. --check-line $DEFAULT_LINE)" >&2; exit 2; }
read -r -a all_lines <<<"$SPARK_LINES"
check_line=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --check-line) [[ $# -ge 2 ]] || usage; check_line="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
if [[ -n "$check_line" ]]; then
  [[ " ${all_lines[*]} " == *" $check_line "* ]] || { echo "release: no Spark line $check_line; lines: ${all_lines[*]}" >&2; exit 2; }
  maven_lines=("$check_line")
  [[ "${LINE_PYSPARK[$check_line]}" == - ]] && { echo "release: $check_line has no pyspark to run on" >&2; exit 2; }
  example_lines=("$check_line"); submit_lines=("$check_line"); all_pythons=()
else
  maven_lines=("${all_lines[@]}")
  example_lines=()   # every line with a pyspark release
  for line in "${all_lines[@]}"; do [[ "${LINE_PYSPARK[$line]}" == - ]] || example_lines+=("$line"); done
  submit_lines=("${example_lines[0]}" "${example_lines[-1]}")   # the oldest and the newest Spark
  all_pythons=(--all-pythons)
fi
timed() { # label command...
  local label="$1" step_start=$SECONDS; shift
  echo "release: $label ..."
  "$@"
  echo "release: $label: $((SECONDS - step_start)) s"
}

# The tools, pinned, in a venv of their own: the build frontend, twine, and the classifiers PyPI accepts.
tools="$ROOT/.tools/release-venv"
tool_pins=(build==1.6.1 twine==7.0.0 trove-classifiers==2026.9.21.13)
if [[ "$(cat "$tools/pins" 2>/dev/null)" != "${tool_pins[*]}" ]]; then
  rm -rf "$tools"
  timed "tools venv (${tool_pins[*]})" bash -c '"$1" -m venv "$2" && PIP_ROOT_USER_ACTION=ignore "$2/bin/python" -m pip install -q "${@:3}"' \
    _ "$PY" "$tools" "${tool_pins[@]}"
  echo "${tool_pins[*]}" >"$tools/pins"
fi

# Every line's jar (the wheel carries them all): built once, skipped when up to date.
timed "jars" env PYTHON="$PY" bash scripts/build-jars.sh
# The Maven artifacts, in one sbt session (build.sbt's publishLines); the checksums of every file.
rm -rf dist
# (a line's compile-time jars that come from its pyspark package, as in build-jars.sh)
for line in "${maven_lines[@]}"; do
  if [[ "${LINE_JARS[$line]}" == pyspark ]]; then PYTHON="$PY" bash scripts/spark-jars.sh "${LINE_SPARK[$line]}"; fi
done
timed "maven artifacts (${maven_lines[*]})" scripts/sbt "publishLines ${maven_lines[*]}"
find dist/maven -type f ! -name '*.md5' ! -name '*.sha1' ! -name '*.sha256' ! -name '*.sha512' -print0 |
  while IFS= read -r -d '' file; do
    for sum in md5 sha1 sha256 sha512; do "${sum}sum" "$file" | cut -d' ' -f1 >"$file.$sum"; done
  done
# The sdist and the wheel, both from this tree (setuptools' build/ from an earlier build would leak into it).
rm -rf build python/src/subjxform.egg-info
timed "sdist and wheel" "$tools/bin/python" -m build --sdist --wheel --outdir dist . >/dev/null

echo "release: built in $((SECONDS - start)) s; checking"
status=0
"$tools/bin/python" scripts/release_check.py --dist dist --python "$PY" --all-lines "${all_lines[*]}" \
  --maven-lines "${maven_lines[*]}" --example-lines "${example_lines[*]}" --submit-lines "${submit_lines[*]}" \
  "${all_pythons[@]}" || status=$?
echo "release: $( ((status == 0)) && echo "every check passed" || echo "CHECKS FAILED") in $((SECONDS - start)) s" \
  "(${check_line:+line $check_line, }version $(tr -d '[:space:]' <version.txt))"
exit $status
