#!/usr/bin/env bash
# Prints the path of a jar fetched by Maven coordinates (group:artifact:version) into .tools/maven/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
coords="$1"
IFS=: read -r group artifact version <<<"$coords"
dest="$ROOT/.tools/maven"
jar="$dest/$artifact-$version.jar"
if [[ ! -s "$jar" ]]; then
  mkdir -p "$dest"
  (cd "$dest" && mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$coords" -DoutputDirectory="$dest" \
     -Dmdep.overWriteReleases=true) >&2
fi
echo "$jar"
