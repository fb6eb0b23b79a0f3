# shellcheck shell=bash
# The Spark lines, read from the one list (python/src/subjxform/data/spark-lines.tsv: its header says what each
# column means), for the scripts that source this file:
#   SPARK_LINES           every line, oldest first ("3.5_2.12 3.5_2.13 ...")
#   DEFAULT_LINE          the default line: the demo's, the full test run's, the command line's
#   LINE_SPARK[line]      the Spark release its jar is compiled against
#   LINE_PYSPARK[line]    the pyspark its Python suite runs on ("-": none)
#   LINE_JAVAS[line]      the Javas its Scala suites run on ("17 21")
#   LINE_JARS[line]       where its compile-time Spark jars come from: maven, or pyspark (scripts/spark-jars.sh)
#   LINE_LANE[line]       the scripts/test.sh lane that runs its Python suite (jvm, py; "-": none)
#   LINE_PYTHON[line]     the Python the release check runs its pyspark on
SPARK_LINES="" DEFAULT_LINE=""
declare -A LINE_SPARK=() LINE_PYSPARK=() LINE_JAVAS=() LINE_JARS=() LINE_LANE=() LINE_PYTHON=()
while IFS=$'\t' read -r _line _spark _scala _pyspark _python _javas _jars _lane _role; do
  [[ -z "$_line" || "$_line" == \#* ]] && continue
  SPARK_LINES+="${SPARK_LINES:+ }$_line"
  LINE_SPARK[$_line]="$_spark" LINE_PYSPARK[$_line]="$_pyspark" LINE_JAVAS[$_line]="${_javas//,/ }"
  LINE_JARS[$_line]="$_jars" LINE_LANE[$_line]="$_lane" LINE_PYTHON[$_line]="$_python"
  [[ "$_role" == default ]] && DEFAULT_LINE="$_line"
done <"$(dirname "${BASH_SOURCE[0]}")/../python/src/subjxform/data/spark-lines.tsv"
unset _line _spark _scala _pyspark _python _javas _jars _lane _role
[[ -n "$DEFAULT_LINE" ]] || { echo "spark-lines: no default line in spark-lines.tsv" >&2; exit 1; }
lines_with() { # COLUMN VALUE: the lines whose column (an LINE_* array's name) holds the value, oldest first
  local -n _column="$1"; local l out=()
  for l in $SPARK_LINES; do [[ "${_column[$l]}" == "$2" ]] && out+=("$l"); done
  echo "${out[*]}"
}
