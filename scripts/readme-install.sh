#!/usr/bin/env bash
# The README's install, as a new user runs it: a clean clone of HEAD (no .tools/, no jars, no build/), a fresh
# venv, and the commands of README.md's "## Install" block, read from the README itself and run one by one as
# written (so that the check follows the README). Then the wheel is checked: every Spark line's jar and the
# Scala library the command line runs with are inside, and `python -m subjxform jar` names a jar that exists.
# Fails, naming the command, when any of it fails. Run once in CI (scripts/test.sh), at the start.
#   bash scripts/readme-install.sh [--reuse-jars]
#     --reuse-jars   copy the clone's jars into this checkout's package (CI: the clone is this very commit and
#                    the tree is unchanged, so the set-up then finds every jar up to date instead of building
#                    them again; refused when the tree differs from HEAD)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
reuse=0
case "${1-}" in
  --reuse-jars) reuse=1 ;;
  "") ;;
  *) echo "usage: bash scripts/readme-install.sh [--reuse-jars]" >&2; exit 2 ;;
esac
work="$ROOT/target/readme-install"
clone="$work/clone" venv="$work/venv"
start=$SECONDS

rm -rf "$work" && mkdir -p "$work"
git clone -q --no-hardlinks "$ROOT" "$clone"
echo "readme-install: a clean clone of $(git -C "$clone" log -1 --format='%h %s' | cut -c1-80)"
"$PY" -m venv "$venv"
# The README's prerequisite beside subjxform is the user's own pyspark ("python -m subjxform jar: the jar for
# the installed pyspark"): the default line's (python/src/subjxform/data/spark-lines.tsv), without its dependencies (only its
# version is read).
source scripts/spark-lines.sh
default_pyspark="${LINE_PYSPARK[$DEFAULT_LINE]}"
PIP_ROOT_USER_ACTION=ignore "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
  "pyspark==$default_pyspark"

# The commands of the README's first ```bash block after "## Install" (blank and comment lines left out; bash
# itself reads the comments after a command).
mapfile -t commands < <(awk '
  /^## Install/ { section = 1; next }
  section && /^## / { exit }
  section && /^```bash/ { block = 1; next }
  block && /^```/ { exit }
  block && $0 !~ /^[ \t]*(#.*)?$/ { print }
' README.md)
[[ ${#commands[@]} -gt 0 ]] || { echo "readme-install: README.md has no \`\`\`bash block under ## Install" >&2; exit 1; }

jar_output="$work/jar-output.txt"
for i in "${!commands[@]}"; do
  cmd="${commands[$i]}"
  echo "readme-install: \$ $cmd"
  step=$SECONDS
  # (in the clone, with the venv first on PATH, as `source venv/bin/activate` leaves a shell)
  if ! (cd "$clone" && export VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" PIP_ROOT_USER_ACTION=ignore &&
        bash -euo pipefail -c "$cmd" | tee "$work/out-$i.txt"); then
    echo "readme-install: FAILED after $((SECONDS - step)) s: the README's install command \`$cmd\`" >&2
    exit 1
  fi
  echo "readme-install: $((SECONDS - step)) s"
  [[ "$cmd" == *"subjxform jar"* ]] && cp "$work/out-$i.txt" "$jar_output"
done

# What the wheel must carry: each line's jar and the command line's Scala library.
read -r -a lines <<<"$(PYTHONPATH="$ROOT/python/src" "$PY" -c \
  'from subjxform.session import LINES; print(" ".join(f"{s}_{c}" for s, c in LINES))')"
wheels=("$clone"/dist/subjxform-*.whl)
[[ -f "${wheels[0]}" ]] || { echo "readme-install: no wheel in the clone's dist/" >&2; exit 1; }
listing="$("$PY" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "${wheels[0]}")"
for line in "${lines[@]}"; do
  grep -qx "subjxform/jars/subjxform-spark-$line.jar" <<<"$listing" \
    || { echo "readme-install: the wheel lacks the jar of Spark line $line" >&2; exit 1; }
done
grep -qE '^subjxform/jars/scala-library-[0-9.]+\.jar$' <<<"$listing" \
  || { echo "readme-install: the wheel lacks the command line's Scala library" >&2; exit 1; }
if [[ -s "$jar_output" ]]; then
  named="$(tail -n 1 "$jar_output")"
  [[ -f "$named" ]] || { echo "readme-install: python -m subjxform jar named $named, which does not exist" >&2; exit 1; }
fi
echo "readme-install: the README's install works on a clean clone: ${#commands[@]} commands in $((SECONDS - start)) s," \
  "the wheel carries the ${#lines[@]} lines' jars"

if [[ $reuse == 1 ]]; then
  if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
    echo "readme-install: --reuse-jars: this tree differs from HEAD, its jars are built from it instead" >&2
  else
    mkdir -p python/src/subjxform/jars
    cp "$clone"/python/src/subjxform/jars/*.jar python/src/subjxform/jars/
    echo "readme-install: the clone's jars copied into python/src/subjxform/jars (the same commit)"
    # The Spark jars the clone fetched to build them (a line whose jars only a pyspark package carries): the
    # Scala suites compile against them here, and build-jars.sh, finding every jar up to date, fetches none.
    mkdir -p .tools/spark-jars
    for fetched in "$clone"/.tools/spark-jars/*/; do
      [[ -d "$fetched" && ! -e ".tools/spark-jars/$(basename "$fetched")" ]] || continue
      mv "$fetched" ".tools/spark-jars/$(basename "$fetched")"
      echo "readme-install: the clone's Spark $(basename "$fetched") jars moved into .tools/spark-jars"
    done
  fi
fi
