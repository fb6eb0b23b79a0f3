#!/usr/bin/env bash
# Set up, then run the demo module. Arguments go to `python -m subjxform.demo`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh >&2
exec "${PYTHON:-python3}" -m subjxform.demo "$@"
