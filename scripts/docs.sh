#!/usr/bin/env bash
# The docs site, from a fresh clone, in one command: `bash scripts/docs.sh` builds it into target/site (strict: a
# dead link fails), `bash scripts/docs.sh serve` serves it on 127.0.0.1:8000 and rebuilds on every change.
# What it needs is Python and the `docs` extra's tools (MkDocs, Material, mkdocstrings), which it installs when
# they are missing (the versions pyproject.toml pins); no jar, no Java, no pyspark: the reference pages are
# read from the sources (scripts/mkdocs_hooks.py).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"

# The docs extra's requirements, read from pyproject.toml (so the pins live in one place); installed alone, not
# with the package (whose build would first build every Spark line's jar).
mapfile -t requirements < <("$PY" - <<'EOF'
import re
text = open("pyproject.toml", encoding="utf-8").read()
found = re.search(r'^docs = \[(.*)\]', text, re.M)  # (one line; greedy: "mkdocstrings[python]" has brackets)
print("\n".join(re.findall(r'"([^"]+)"', found.group(1))))
EOF
)
if ! "$PY" - "${requirements[@]}" <<'EOF' 2>/dev/null
import sys, importlib.metadata as md, re
for requirement in sys.argv[1:]:
    name, _, version = re.split(r"(==)", re.sub(r"\[.*?\]", "", requirement))
    assert md.version(name) == version, requirement
EOF
then
  echo "docs: installing the docs tools: ${requirements[*]}"
  PIP_ROOT_USER_ACTION=ignore "$PY" -m pip install -q "${requirements[@]}"
fi

# The reference pages read this tree's package (its docstrings, its commands' --help).
export PYTHONPATH="$ROOT/python/src${PYTHONPATH:+:$PYTHONPATH}"
# mkdocs-material prints its end-of-life notice (May 2027) on every build: docs/development.md, not a finding.
export NO_MKDOCS_2_WARNING=1
if [[ "${1:-build}" == "serve" ]]; then
  exec "$PY" -m mkdocs serve --strict --dev-addr 127.0.0.1:8000
fi
exec "$PY" -m mkdocs build --strict
