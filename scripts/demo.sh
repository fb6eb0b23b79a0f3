#!/usr/bin/env bash
# Set up, then run the demo module. Arguments go to `python -m subjxform.demo`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
bash scripts/setup.sh >&2
exec "${PYTHON:-python3}" -m subjxform.demo "$@"
