#!/usr/bin/env bash
# Lint and format of the Python tree (the package, the tests, the benchmarks): ruff, with the rule set and
# its reasons in pyproject.toml; then the package's types: mypy, with its settings in pyproject.toml
# ([tool.mypy]); then the format of the Scala tree (jvm/, project/, build.sbt): scalafmt, with its style in
# .scalafmt.conf. Seconds; scripts/test.sh runs it first, so CI fails on a finding.
#   bash scripts/lint.sh          check (exit 1 on a finding, a file ruff or scalafmt would reformat, a type error)
#   bash scripts/lint.sh --fix    fix what ruff can and reformat both trees, then check (mypy fixes nothing)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
fix=0
[[ "${1-}" == "--fix" ]] && fix=1

if [[ $fix == 1 ]]; then
  "$PY" -m ruff check --fix --quiet . || true
  "$PY" -m ruff format --quiet .
fi
"$PY" -m ruff check .
"$PY" -m ruff format --check .
"$PY" -m mypy

# scalafmt's command line, the version .scalafmt.conf names, fetched once through Maven into .tools/maven/.
mapfile -t scala_files < <(find build.sbt project jvm -name target -prune -o -type f \( -name '*.scala' -o -name '*.sbt' \) \
  -print | LC_ALL=C sort)
scalafmt() {
  local version classpath
  version="$(sed -n 's/^version *= *\([0-9][0-9.]*\).*/\1/p' .scalafmt.conf)"
  classpath="$(bash scripts/maven-jar.sh --with-dependencies "org.scalameta:scalafmt-cli_2.13:$version")"
  # C1 only and one GC thread: a run of seconds is over before C2's compilations would pay for themselves
  # (half the CPU time on two cores).
  java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$classpath" org.scalafmt.cli.Cli --non-interactive \
    --config .scalafmt.conf "$@" "${scala_files[@]}"
}
# The check is skipped when these very files, under this config, passed it before (a stamp in .tools/):
# a change to Python alone costs no JVM start.
clean_stamp() {
  echo ".tools/scalafmt-clean.$( { printf '%s\n' "${scala_files[@]}"; cat .scalafmt.conf "${scala_files[@]}"; } \
    | sha256sum | cut -c1-16)"
}
stamp="$(clean_stamp)"
if [[ $fix == 1 && ! -f "$stamp" ]]; then
  scalafmt --quiet || true   # what it cannot format (a syntax error), the check below reports
  stamp="$(clean_stamp)"
fi
if [[ ! -f "$stamp" ]]; then
  # (its progress lines left out of the log; what it would change is shown as a diff)
  if ! scalafmt --test 2>&1 | { grep -v -e '^Looking for unformatted files' -e '^$' >&2 || true; }; then
    echo "lint: scalafmt would reformat the Scala above: bash scripts/lint.sh --fix" >&2
    exit 1
  fi
  mkdir -p .tools && rm -f .tools/scalafmt-clean.* && touch "$stamp"
fi
echo "lint: ruff check, ruff format --check, mypy and scalafmt --test: clean"
