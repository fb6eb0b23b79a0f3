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
import shlex
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script too
from validate_verdicts import (  # noqa: E402
    LINES,
    RELEASES,
    VALIDATE,
    UnknownRelease,
    binary,
    missing_errors,
    server_verdicts,
    validate_verdicts,
)

CORPUS = Path(__file__).resolve().parent / "validate_corpus"


def configs() -> list[str]:
    return sorted(p.name for p in CORPUS.glob("*.conf"))


@pytest.mark.parametrize("line", LINES + RELEASES)
def test_validate_agrees_with_nats_server_t_on_every_corpus_config(line):
    if not binary(line).exists():
        pytest.skip(f"no nats-server {line} in .tools: run scripts/nats-servers.sh (this line is not compared)")
    theirs, ours = server_verdicts(line, configs(), CORPUS), validate_verdicts(line, VALIDATE, configs(), CORPUS)
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
        if not binary(line).exists():
            print(f"{line}: no binary, skipped")
            continue
        try:
            ours = validate_verdicts(line, validate, configs(), CORPUS)
        except UnknownRelease:
            print(f"{line}: validate does not know this release, skipped")
            continue
        theirs = server_verdicts(line, configs(), CORPUS)
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
