"""`subjxform validate --server-version L` gives the verdict of `nats-server -t` of line L on whole server configs.

tests/validate_corpus/ holds configs written for this test after the shapes of published ones (nats-server's own
test configs, the docs' examples): one-line configs, permission variables, every block with a TLS block, files
that are missing, not PEM or a key that does not match its certificate, unknown cipher and curve names, fields a
line added, type errors, resolvers. Its certs/ were made with openssl for it. Paths in the configs are relative,
and nats-server opens them from its working directory (not the config file's folder), so both run from the
corpus folder. Each config goes through every line's binary and through validate for that line; a line whose
binary is not installed (scripts/nats-servers.sh) is skipped, and says so.

    python3 tests/test_validate_corpus.py [--validate 'CMD ...']   # the agreement per line, and each difference
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python" / "src"))  # run as a script too
from subjxform.grammar.server_version import PUBLISHED  # noqa: E402

LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
HERE = Path(__file__).resolve().parent
CORPUS = HERE / "validate_corpus"
TOOLS = HERE.parent / ".tools" / "nats-server"


def known_release(name: str) -> bool:
    """Whether the release table has `name` (validate --server-version takes it); a newer binary may be installed."""
    line, _, patch = name.rpartition(".")
    return patch.isdigit() and int(patch) in PUBLISHED.get(line, ())


# Single releases whose binary is installed beside the lines' (.tools/nats-server/2.10.25/...) and that the release
# table has, compared too: a release inside a line may know fewer fields than the line's measured release (2.10.25:
# no max_closed_clients). An installed release the table lacks is left out here (the table is another test's).
RELEASES = sorted(
    (p.name for p in TOOLS.glob("*.*.*") if (p / "bin" / "nats-server").exists() and known_release(p.name)),
    key=lambda r: tuple(int(x) for x in r.split(".")),
)
VALIDATE = [sys.executable, "-m", "subjxform", "validate"]


def configs() -> list[str]:
    return sorted(p.name for p in CORPUS.glob("*.conf"))


# An error as -t prints it (`FILE:LINE:COL: message`) and as validate does (`FILE:LINE:COL: error: [field: ]message`).
SERVER_ERROR = re.compile(r"^(?:nats-server: )?([^:\s]+\.conf):(\d+):(\d+): (.*)$")
OUR_ERROR = re.compile(r"^([^:\s]+\.conf):(\d+):(\d+): error: (.*)$")

# An error's place and words: (line, column, message).
Error = tuple[int, int, str]
Verdicts = dict[str, tuple[bool, str, list[Error]]]


def server_verdicts(line: str) -> Verdicts:
    """Each config: whether line's `nats-server -t` accepts it, its first line of output, its errors."""
    binary = TOOLS / line / "bin" / "nats-server"
    verdicts = {}
    for name in configs():
        done = subprocess.run([str(binary), "-t", "-c", name], cwd=CORPUS, capture_output=True, text=True, timeout=60)
        said = (done.stderr + done.stdout).strip().splitlines()
        errors = [(int(m[2]), int(m[3]), m[4]) for m in map(SERVER_ERROR.match, said) if m]
        verdicts[name] = (done.returncode == 0, said[0] if said else "", errors)
    return verdicts


class UnknownRelease(Exception):
    """validate's usage error for a release its release table does not have (ServerVersion's Published)."""


def validate_verdicts(line: str, validate: list[str]) -> Verdicts:
    """Each config: whether `validate --server-version line` accepts it (its `FILE: valid for nats-server ...` line),
    what it said first, and its errors."""
    names = configs()
    done = subprocess.run(
        [*validate, "--server-version", line, *names], cwd=CORPUS, capture_output=True, text=True, timeout=300
    )
    if done.returncode == 2:
        raise UnknownRelease((done.stdout + done.stderr).strip())
    lines = done.stdout.splitlines()
    verdicts = {}
    for name in names:
        said = [t for t in lines if t.startswith(name + ":")]
        ok = any(t.startswith(f"{name}: valid for nats-server ") for t in said)
        errors = [(int(m[2]), int(m[3]), m[4]) for m in map(OUR_ERROR.match, said) if m]
        verdicts[name] = (ok, next((t for t in said if ": note:" not in t), ""), errors)
    return verdicts


def missing_errors(theirs: list[Error], ours: list[Error], columns: bool = True) -> list[Error]:
    """The server's errors validate does not give on the same line (and column, unless `columns` is false) in the
    same words (after its field label)."""
    return [
        (n, c, text)
        for n, c, text in theirs
        if not any(m == n and (d == c or not columns) and o.endswith(text) for m, d, o in ours)
    ]


@pytest.mark.parametrize("line", LINES + RELEASES)
def test_validate_agrees_with_nats_server_t_on_every_corpus_config(line):
    if not (TOOLS / line / "bin" / "nats-server").exists():
        pytest.skip(f"no nats-server {line} in .tools: run scripts/nats-servers.sh (this line is not compared)")
    theirs, ours = server_verdicts(line), validate_verdicts(line, VALIDATE)
    differ = {n: (theirs[n][1], ours[n][1]) for n in configs() if theirs[n][0] != ours[n][0]}
    assert not differ, "\n".join(f"{n}: nats-server -t {t!r} / validate {o!r}" for n, (t, o) in differ.items())
    # Where -t names a place (its "Parse error on line N" names no file: the lexer's, compared by tests/conf_*),
    # validate gives the same error at the same line and column.
    unmatched = {n: missing_errors(theirs[n][2], ours[n][2]) for n in configs()}
    assert not any(unmatched.values()), {n: (m, ours[n][2]) for n, m in unmatched.items() if m}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--validate", help="the validate command to compare (default: python -m subjxform validate)")
    args = parser.parse_args()
    validate = shlex.split(args.validate) if args.validate else VALIDATE
    total_same = total = 0
    for line in LINES + RELEASES:
        if not (TOOLS / line / "bin" / "nats-server").exists():
            print(f"{line}: no binary, skipped")
            continue
        try:
            ours = validate_verdicts(line, validate)
        except UnknownRelease:
            print(f"{line}: validate does not know this release, skipped")
            continue
        theirs = server_verdicts(line)
        same = [n for n in configs() if theirs[n][0] == ours[n][0]]
        named = [n for n in same if not theirs[n][0] and theirs[n][2]]
        on_line = [n for n in named if not missing_errors(theirs[n][2], ours[n][2], columns=False)]
        worded = [n for n in named if not missing_errors(theirs[n][2], ours[n][2])]
        total_same, total = total_same + len(same), total + len(theirs)
        print(
            f"{line}: {len(same)}/{len(theirs)} verdicts agree; of the {len(named)} refusals both make where -t "
            f"names a place, {len(on_line)} give every error of -t on its line in its words, {len(worded)} at its "
            "line and column"
        )
        for n in configs():
            if n not in same:
                print(f"  {n}: -t {'valid' if theirs[n][0] else theirs[n][1]!r} / validate {ours[n][1]!r}")
            elif n in named and n not in worded:
                print(f"  {n}: -t {theirs[n][2]} / validate {ours[n][2]}")
    print(f"all lines: {total_same}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
