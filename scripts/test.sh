#!/usr/bin/env bash
# Every test (CI's .ci/run), or the quick inner loop.
#
#   bash scripts/test.sh            set-up, then two lanes side by side (two cores):
#                                     jvm: every line's Scala suites on its Javas (one sbt session), the
#                                          release check of the newest line (scripts/release.sh), then the
#                                          Python suites of some of the older lines
#                                     py:  lint, the default line in full — all of pytest, the API
#                                          modules again over Spark Connect, the portable suite with no jar
#                                          (local and Connect) — then the Python suites of the other lines
#                                   (the older lines' venvs are made beside the set-up and the lanes' start)
#                                   then the time of every step (target/test-times.txt).
#   bash scripts/test.sh --quick    lint, the engine's Scala suites and the pytest sample marked `quick`
#                                   on the default line: under 3 minutes once set up; before every commit.
#   SUBJXFORM_LINES="3.5_2.12"      limit the matrix of older lines ("" skips it)
#   SUBJXFORM_PYTEST_WORKERS=N      pytest processes of the default line's full run (default 2; 1: one process)
# The lines: python/src/subjxform/data/spark-lines.tsv (scripts/spark-lines.sh), the default line among them.
# Extra arguments go to the default line's pytest run (full) or the sample (quick).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
export PYTHON="$PY" SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
source scripts/steps.sh
source scripts/spark-lines.sh
default="${DEFAULT_LINE%_*}"  # its Spark minor, in the steps' names
start=$SECONDS
: > target/test-times.txt
: > target/test-failed.txt

if [[ "${1-}" == "--quick" ]]; then
  shift
  timed "set-up" bash scripts/setup.sh
  timed "lint" bash scripts/lint.sh
  timed "engine suites (core)" scripts/sbt core/test
  timed "pytest sample (-m quick)" "$PY" -m pytest -q -p no:cacheprovider -m quick tests "$@"
  echo "test: quick: $((SECONDS - start)) s"
  failed_steps  # (with SUBJXFORM_KEEP_GOING=1 every step ran: the run still fails if one did)
  exit 0
fi

# The lines of the matrix (the default one is tested in full below as well), their Python suites in the two
# lanes the list gives them (LINE_LANE: shares whose times match, measured in target/test-times.txt); a line's
# Python suite runs in a venv made beside the set-up.
matrix=()
if [[ -n "${SUBJXFORM_LINES-all}" ]]; then
  read -r -a matrix <<<"${SUBJXFORM_LINES:-$SPARK_LINES}"
fi
in_matrix() { [[ " ${matrix[*]} " == *" $1 "* ]]; }
python_suites() { # lines...: each one's Python suite, if it is in the matrix
  local line
  await_done target/venvs.done
  for line in "$@"; do if in_matrix "$line"; then bash scripts/test-lines.sh python "$line"; fi; done
}

# --- 1. Set-up: every line's jar in one sbt session beside the Python package; the matrix's Javas and venvs
# (downloads, mostly) beside both, and beside the lanes' first steps, which need none of the venvs. Each part
# of the venvs lane writes its exit status to a file when done: the lanes wait for the file.
matrix_venvs() {
  local line javas venvs
  set +e  # (as in steps.sh's timed: errexit holds in each subshell, which no `||` follows)
  (set -e; for java in 11 21; do bash scripts/java.sh "$java" >/dev/null; done)
  javas=$?
  echo "$javas" >target/javas.done
  (set -e; for line in "${matrix[@]}"; do bash scripts/test-lines.sh venv "$line"; done)
  venvs=$?
  set -e
  echo "$venvs" >target/venvs.done
  [[ $javas == 0 && $venvs == 0 ]]
}
await_done() { # FILE: that part of the venvs lane, from inside another lane (bash waits only for its children)
  while [[ ! -s "$1" ]]; do sleep 2; done
  [[ "$(cat "$1")" == 0 ]] || { echo "test: $1: the venvs lane failed there (target/logs/venvs.log)" >&2; return 1; }
}
rm -f target/javas.done target/venvs.done
lane venvs matrix_venvs
# The README's install on a clean clone of this commit in a fresh venv, before any cache of the checkout is
# filled (it builds every line's jar; CI's tree is that commit unchanged, so the set-up reuses those jars).
readme_install() { # (a failure is recorded and the run goes on: the set-up builds the jars itself then)
  SUBJXFORM_KEEP_GOING=1 timed "README install on a clean clone" bash scripts/readme-install.sh --reuse-jars
}
lane readme readme_install
SUBJXFORM_SETUP_LINES=none timed "set-up (the package, nats-server)" bash scripts/setup.sh
wait_lanes readme
timed "jars (every line's; up to date when the README's install built them)" bash scripts/build-jars.sh

# --- 2. Two lanes.
jvm_lane() {
  local line scala_lines=("$DEFAULT_LINE")
  for line in "${matrix[@]}"; do [[ "$line" == "$DEFAULT_LINE" ]] || scala_lines+=("$line"); done
  await_done target/javas.done  # (the Scala suites run on Java 11 and 21 too)
  bash scripts/test-lines.sh scala "${scala_lines[@]}"
  # What a release publishes, built and checked as a user installs it, for the default line (the wheel, the
  # sdist, its Maven artifact: `--packages` from dist/maven); here, where no other sbt runs on the build.
  timed "release check, $DEFAULT_LINE" bash scripts/release.sh --check-line "$DEFAULT_LINE"
  python_suites $(lines_with LINE_LANE jvm)
}
py_lane() {
  local workers="${SUBJXFORM_PYTEST_WORKERS:-2}" xdist=()
  timed "lint" bash scripts/lint.sh
  # (a test file to a worker at a time, the longest files first: LONGEST_FIRST in tests/conftest.py)
  [[ "$workers" -gt 1 ]] && xdist=(-n "$workers" --dist loadfile --no-loadscope-reorder)
  timed "$default pytest" "$PY" -m pytest -q -p no:cacheprovider --durations=30 "${xdist[@]}" tests "$@"
  # The Python API modules again, as a Spark Connect client of a server started with the jar.
  timed "$default pytest, Spark Connect" env SUBJXFORM_SPARK_MODE=connect "$PY" -m pytest -q -p no:cacheprovider \
    tests/test_functions.py tests/test_streams.py tests/test_runtime_errors.py tests/test_accounts.py tests/test_groups.py \
    tests/test_nats_source.py
  # subjxform.portable where no jar is (Databricks serverless / shared access mode): a local session and a
  # Spark Connect server, both started without the jar.
  timed "$default pytest, no jar" env SUBJXFORM_SPARK_MODE=nojar "$PY" -m pytest -q -p no:cacheprovider tests/test_portable*.py
  timed "$default pytest, no jar, Spark Connect" env SUBJXFORM_SPARK_MODE=nojar-connect "$PY" -m pytest -q \
    -p no:cacheprovider tests/test_portable*.py
  python_suites $(lines_with LINE_LANE py)
}
# In the lanes a failed step does not stop the steps after it: one run shows every failure.
export SUBJXFORM_KEEP_GOING=1
lane jvm jvm_lane
lane py py_lane "$@"
wait_lanes venvs jvm py

echo "test: the time of each step (lanes side by side):"
cat target/test-times.txt
echo "test: all: $((SECONDS - start)) s"
failed_steps
