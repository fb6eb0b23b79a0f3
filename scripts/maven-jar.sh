#!/usr/bin/env bash
# Prints the path of a jar fetched by Maven coordinates (group:artifact:version) into .tools/maven/.
#   scripts/maven-jar.sh GROUP:ARTIFACT:VERSION                      the jar alone
#   scripts/maven-jar.sh --with-dependencies GROUP:ARTIFACT:VERSION  a classpath (DIR/*): the jar and its
#                                                                    runtime dependencies, in a folder of their own
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
with_dependencies=0
if [[ "$1" == "--with-dependencies" ]]; then with_dependencies=1; shift; fi
coords="$1"
IFS=: read -r group artifact version <<<"$coords"
dest="$ROOT/.tools/maven"
mkdir -p "$dest"

if [[ $with_dependencies == 0 ]]; then
  jar="$dest/$artifact-$version.jar"
  if [[ ! -s "$jar" ]]; then
    (cd "$dest" && mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$coords" -DoutputDirectory="$dest" \
       -Dmdep.overWriteReleases=true) >&2
  fi
  echo "$jar"
  exit 0
fi

# dependency:copy-dependencies resolves a project's dependencies, so a throwaway project names the one
# artifact; the folder is moved into place only once complete, so a half-done fetch is never used.
dir="$dest/$artifact-$version"
if [[ ! -s "$dir/$artifact-$version.jar" ]]; then
  tmp="$(mktemp -d "$dest/.fetch.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  cat >"$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>fetch</artifactId><version>0</version>
  <dependencies>
    <dependency><groupId>$group</groupId><artifactId>$artifact</artifactId><version>$version</version></dependency>
  </dependencies>
</project>
EOF
  if ! (cd "$tmp" && mvn -q -B -Dstyle.color=never dependency:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$tmp/jars") >"$tmp/mvn.log" 2>&1; then
    cat "$tmp/mvn.log" >&2
    echo "maven-jar: could not fetch $coords and its dependencies with Maven" >&2
    exit 1
  fi
  rm -rf "$dir" && mv "$tmp/jars" "$dir"
fi
echo "$dir/*"
