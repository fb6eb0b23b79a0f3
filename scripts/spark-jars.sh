#!/usr/bin/env bash
# Spark's jars for a release the Maven repository does not have (4.3.0), taken from its pyspark
# package, into .tools/spark-jars/<version>/ (where build.sbt looks for them). Idempotent.
#   scripts/spark-jars.sh 4.3.0
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
version="$1"
dest="$ROOT/.tools/spark-jars/$version"
if compgen -G "$dest/spark-sql_*-$version.jar" >/dev/null; then exit 0; fi
downloads="$ROOT/.tools/downloads"
mkdir -p "$downloads"
if ! compgen -G "$downloads/pyspark-$version*" >/dev/null; then
  echo "spark-jars: fetching pyspark $version's source package (about 440 MB: Spark's jars are inside)" >&2
  # (pip: the interpreter's own, so that the user's index settings hold; inside a wheel build, the build's
  # interpreter, which has pip as a build requirement)
  if ! "$PY" -c 'import pip' 2>/dev/null; then
    echo "spark-jars: $PY has no pip to fetch pyspark $version with (PYTHON=... names another interpreter)" >&2
    exit 1
  fi
  PIP_ROOT_USER_ACTION=ignore "$PY" -m pip download --no-deps --no-binary :all: \
    "pyspark==$version" -d "$downloads" >&2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$downloads/pyspark-$version.tar.gz" -C "$tmp" "pyspark-$version/deps/jars"
rm -rf "$dest" && mkdir -p "$(dirname "$dest")"
mv "$tmp/pyspark-$version/deps/jars" "$dest"
echo "spark-jars: Spark $version's jars in $dest" >&2
