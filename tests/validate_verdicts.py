"""What `nats-server -t` and `subjxform validate --server-version` say of a set of configs, read the same way for
each corpus the validate tests compare (tests/test_validate_corpus.py: configs written for the test;
tests/test_validate_module_corpus.py: the configs published in Go modules).

A verdict is (accepted, the first thing said, the errors that name a line as (line, text)). Paths inside a config are
taken from the working directory by both (nats-server opens them from there, not from the config's folder), so each
set of configs runs from one folder, given as `cwd`, and is named as the caller names it there.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python" / "src"))  # run as a script too
from subjxform.grammar.server_version import PUBLISHED  # noqa: E402

LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
TOOLS = Path(__file__).resolve().parent.parent / ".tools" / "nats-server"
VALIDATE = [sys.executable, "-m", "subjxform", "validate"]


def known_release(name: str) -> bool:
    """Whether the release table has `name` (validate --server-version takes it); a newer binary may be installed."""
    line, _, patch = name.rpartition(".")
    return patch.isdigit() and int(patch) in PUBLISHED.get(line, ())


# Single releases whose binary is installed beside the lines' (.tools/nats-server/2.10.25/...) and that the release
# table has: a release inside a line may know fewer fields than the line's measured release (2.10.25: no
# max_closed_clients). An installed release the table lacks is left out here (the table is another test's).
RELEASES = sorted(
    (p.name for p in TOOLS.glob("*.*.*") if (p / "bin" / "nats-server").exists() and known_release(p.name)),
    key=lambda r: tuple(int(x) for x in r.split(".")),
)


def binary(line: str) -> Path:
    """The installed nats-server of a line or release (scripts/nats-servers.sh installs them)."""
    return TOOLS / line / "bin" / "nats-server"


# An error as -t prints it (`FILE:LINE:COL: message`) and as validate does (`FILE:LINE:COL: error: [field: ]message`;
# before columns, `FILE:LINE: error: ...`, read with column 0).
SERVER_ERROR = re.compile(r"^(?:nats-server: )?([^:\s]+\.conf):(\d+):(\d+): (.*)$")
OUR_ERROR = re.compile(r"^([^:\s]+\.conf):(\d+)(?::(\d+))?: error: (.*)$")
# validate's success line for a file: `FILE: valid for nats-server X: ...`, or before that wording `FILE: OK: ...`.
OUR_SUCCESS = ("OK:", "valid for nats-server")

# An error's place and words: (line, column, message).
Error = tuple[int, int, str]
Verdict = tuple[bool, str, list[Error]]


def read_errors(pattern: re.Pattern[str], said: list[str]) -> list[Error]:
    return [(int(m[2]), int(m[3] or 0), m[4]) for m in map(pattern.match, said) if m]


def server_verdicts(line: str, names: list[str], cwd: Path) -> dict[str, Verdict]:
    """Each config: whether line's `nats-server -t` accepts it, its first line of output, its errors."""
    verdicts = {}
    for name in names:
        done = subprocess.run(
            [str(binary(line)), "-t", "-c", name], cwd=cwd, capture_output=True, text=True, timeout=60
        )
        said = (done.stderr + done.stdout).strip().splitlines()
        verdicts[name] = (done.returncode == 0, said[0] if said else "", read_errors(SERVER_ERROR, said))
    return verdicts


class UnknownRelease(Exception):
    """validate's usage error for a release its release table does not have (ServerVersion's Published)."""


def validate_verdicts(line: str, validate: list[str], names: list[str], cwd: Path) -> dict[str, Verdict]:
    """Each config: whether `validate --server-version line` accepts it (its success line), what it said first,
    and its errors (line, text). One run for all of them (one JVM)."""
    done = subprocess.run(
        [*validate, "--server-version", line, *names], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    if done.returncode == 2:
        raise UnknownRelease((done.stdout + done.stderr).strip())
    lines = done.stdout.splitlines()
    if len(names) == 1:  # validate names the file only when it was given several: name each line as it would
        lines = [t if t.startswith(names[0] + ":") else f"{names[0]}: {t}" for t in lines]
    verdicts = {}
    for name in names:
        said = [t for t in lines if t.startswith(name + ":")]
        ok = any(t[len(name) + 1 :].lstrip().startswith(OUR_SUCCESS) for t in said)
        verdicts[name] = (ok, next((t for t in said if ": note:" not in t), ""), read_errors(OUR_ERROR, said))
    return verdicts


def missing_errors(theirs: list[Error], ours: list[Error], columns: bool = True) -> list[Error]:
    """The server's errors validate does not give on the same line (and column, unless `columns` is false) in the
    same words (after its field label)."""
    return [
        (n, c, text)
        for n, c, text in theirs
        if not any(m == n and (d == c or not columns) and o.endswith(text) for m, d, o in ours)
    ]
