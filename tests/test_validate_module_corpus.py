"""`subjxform validate --server-version L` gives the verdict of `nats-server -t` of line L on published configs.

The corpus is the server configs published inside nats-io's Go modules, read from the Go module cache (`go mod
download`, the module proxy) and never copied into this repository: the config files (`*.conf`: nats-server's
server/configs, test/configs and conf/, nats.go's and nats-streaming-server's test configs, natscli's scaffolds)
and the configs nats-server's and the clients' Go tests write (`createConfFile(t, []byte(`...`))`, a raw string
literal: templates with `%s` and `%d` stay as published). tests/validate_module_corpus.tsv names each distinct
config (by the sha256 of its text) by its first source: module, version, path and, for a literal, the line it
starts on. The modules and versions are MODULES below; `--build` lists them anew.

Paths inside these configs are relative to where the module's own tests run (the package folder: server/, test/),
so a file runs from the nearest folder above it that holds Go tests, and a literal (written to a temporary file, as
the tests do) from its Go file's folder. Each config goes through `-t` of every line's binary and through validate
for that line. tests/validate_module_corpus_known.tsv lists the configs on which they are known to differ, with the
cause; the test fails on any other difference, and on a listed one that no longer differs (the list stays true)
unless its cause is `random:` (-t's own answer depends on Go's map order there).

    python3 tests/test_validate_module_corpus.py            # the agreement per line, and each difference
    python3 tests/test_validate_module_corpus.py --build    # list the corpus anew from MODULES
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script too
from validate_verdicts import (  # noqa: E402
    LINES,
    VALIDATE,
    Verdict,
    binary,
    server_verdicts,
    validate_verdicts,
)

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "validate_module_corpus.tsv"
KNOWN = HERE / "validate_module_corpus_known.tsv"

# The modules whose configs make the corpus, newest first (a config is named by the first source that has it):
# nats-server at each line's measured release, the newest release and older lines' last releases (their test
# configs differ), the 1.x module, and the nats-io clients and tools whose modules hold server configs.
MODULES = [
    ("github.com/nats-io/nats-server/v2", "v2.15.3"),
    ("github.com/nats-io/nats-server/v2", "v2.15.1"),
    ("github.com/nats-io/nats-server/v2", "v2.14.6"),
    ("github.com/nats-io/nats-server/v2", "v2.12.8"),
    ("github.com/nats-io/nats-server/v2", "v2.11.11"),
    ("github.com/nats-io/nats-server/v2", "v2.10.26"),
    ("github.com/nats-io/nats-server/v2", "v2.9.25"),
    ("github.com/nats-io/nats-server/v2", "v2.2.6"),
    ("github.com/nats-io/nats-server", "v1.4.1"),
    ("github.com/nats-io/nats.go", "v1.56.0"),
    ("github.com/nats-io/nats-streaming-server", "v0.25.6"),
    ("github.com/nats-io/natscli", "v0.5.1"),
]

# A config a Go test writes: createConfFile(t, []byte(`...`)) or createConfFile(t, []byte(fmt.Sprintf(`...`, ...))).
GO_CONFIG = re.compile(r"createConfFile\(\s*\w+\s*,\s*\[\]byte\(\s*(?:fmt\.Sprintf\(\s*)?`([^`]*)`")


@dataclass(frozen=True)
class Source:
    sha256: str
    module: str
    version: str
    path: str  # inside the module
    line: int  # where a Go literal starts; 0 for a config file

    def __str__(self) -> str:
        return f"{self.module}@{self.version}/{self.path}" + (f":{self.line}" if self.line else "")


def sha256(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()


@cache
def module_dir(module: str, version: str) -> Path:
    """The module's folder in the Go module cache, downloaded through the module proxy when missing."""
    done = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@{version}"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "GOFLAGS": "-mod=mod"},
    )
    answer = json.loads(done.stdout or "{}")
    if "Dir" not in answer:
        raise RuntimeError(f"go mod download {module}@{version}: {answer.get('Error') or done.stderr.strip()}")
    return Path(answer["Dir"])


def go_literals(text: str) -> list[tuple[int, str]]:
    """The configs a Go file's tests write: (the line the literal starts on, its text, as Go reads a raw string)."""
    return [(text.count("\n", 0, m.start(1)) + 1, m[1].replace("\r", "")) for m in GO_CONFIG.finditer(text)]


def published(module: str, version: str) -> list[tuple[Source, bytes]]:
    """Every config in one module version, files first, each with its text."""
    root = module_dir(module, version)
    found = []
    for path in sorted(root.rglob("*.conf")):
        if path.is_file():
            text = path.read_bytes()
            found.append((Source(sha256(text), module, version, str(path.relative_to(root)), 0), text))
    for path in sorted(root.rglob("*_test.go")):
        for line, literal in go_literals(path.read_text(encoding="utf-8", errors="replace")):
            text = literal.encode()
            found.append((Source(sha256(text), module, version, str(path.relative_to(root)), line), text))
    return found


def build() -> list[Source]:
    """The corpus from MODULES: each distinct text once, named by its first source."""
    seen: dict[str, Source] = {}
    for module, version in MODULES:
        for source, _ in published(module, version):
            seen.setdefault(source.sha256, source)
    return list(seen.values())


HEADER = (
    "# The published nats-server configs validate is compared on (tests/test_validate_module_corpus.py): each\n"
    "# distinct text once, by its sha256, named by the first Go module version that has it (the module proxy\n"
    "# serves it; `go mod download` puts it in the Go module cache). line: where a Go test's raw string literal\n"
    "# starts (createConfFile), 0 for a config file. Listed by `python3 tests/test_validate_module_corpus.py --build`.\n"
    "sha256\tmodule\tversion\tpath\tline\n"
)


def write_sources(sources: list[Source]) -> None:
    rows = [f"{s.sha256}\t{s.module}\t{s.version}\t{s.path}\t{s.line}\n" for s in sources]
    SOURCES.write_text(HEADER + "".join(rows), encoding="utf-8")


def read_sources() -> list[Source]:
    rows = [r.split("\t") for r in SOURCES.read_text(encoding="utf-8").splitlines() if r and not r.startswith("#")]
    return [Source(r[0], r[1], r[2], r[3], int(r[4])) for r in rows[1:]]


def read_known() -> dict[tuple[str, str], str]:
    """(sha256 prefix, line) -> the cause of a known difference."""
    known = {}
    for row in KNOWN.read_text(encoding="utf-8").splitlines():
        if row and not row.startswith("#"):
            prefix, lines, cause = row.split("\t")
            for line in lines.split(","):
                known[(prefix, line)] = cause
    return known


def run_folder(root: Path, path: Path) -> Path:
    """Where the module's tests run for a config file: the nearest folder above it with Go tests (else the root)."""
    for folder in path.parents:
        if folder == root or not folder.is_relative_to(root):
            break
        if any(folder.glob("*_test.go")):
            return folder
    return root


@dataclass
class Corpus:
    """Each config as a name to give -t and validate, grouped by the folder both run from."""

    folders: dict[Path, list[str]]
    sources: dict[tuple[Path, str], Source]


def lay_out(sources: list[Source], scratch: Path) -> Corpus:
    """The corpus on this machine: config files where the module cache has them, Go literals written to scratch
    (as the tests write them to a temporary folder). Each text is checked against its listed sha256."""
    folders: dict[Path, list[str]] = defaultdict(list)
    by_name: dict[tuple[Path, str], Source] = {}
    literals: dict[tuple[str, str, str], dict[int, str]] = {}
    for source in sources:
        root = module_dir(source.module, source.version)
        if source.line == 0:
            path = root / source.path
            text = path.read_bytes()
            folder = run_folder(root, path)
            name = str(path.relative_to(folder))
        else:
            key = (source.module, source.version, source.path)
            if key not in literals:
                literals[key] = dict(go_literals((root / source.path).read_text(encoding="utf-8", errors="replace")))
            text = literals[key][source.line].encode()
            folder = (root / source.path).parent
            written = scratch / f"{source.sha256[:16]}.conf"
            written.write_bytes(text)
            name = str(written)
        assert sha256(text) == source.sha256, f"{source}: its text is not the one listed"
        folders[folder].append(name)
        by_name[(folder, name)] = source
    return Corpus(dict(folders), by_name)


def go_missing_reason() -> str | None:
    return None if shutil.which("go") else "no Go toolchain: the corpus is read from the Go module cache"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Corpus:
    reason = go_missing_reason()
    if reason:
        pytest.skip(reason)
    return lay_out(read_sources(), tmp_path_factory.mktemp("module-corpus"))


@dataclass
class Comparison:
    total: int
    agree: list[Source]
    differ: list[tuple[Source, Verdict, Verdict]]
    both_refuse_named: list[Source]  # both refuse and -t names a line
    same_line: list[Source]  # ... and validate gives an error on each line -t names
    other_line: list[tuple[Source, Verdict, Verdict]]


def same_lines(theirs: Verdict, ours: Verdict) -> bool:
    """Both refuse on the same line: validate names a line, and every line it names is one -t names (-t may give
    more errors than validate, which stops where the server's reading of a block stops)."""
    named = {n for n, *_ in ours[2]}
    return bool(named) and named <= {n for n, *_ in theirs[2]}


def compare(line: str, corpus: Corpus, validate: list[str] = VALIDATE) -> Comparison:
    result = Comparison(0, [], [], [], [], [])
    for folder, names in corpus.folders.items():
        theirs = server_verdicts(line, names, folder)
        ours = validate_verdicts(line, validate, names, folder)
        for name in names:
            source, t, o = corpus.sources[(folder, name)], theirs[name], ours[name]
            result.total += 1
            if t[0] != o[0]:
                result.differ.append((source, t, o))
                continue
            result.agree.append(source)
            if not t[0] and t[2]:
                result.both_refuse_named.append(source)
                if same_lines(t, o):
                    result.same_line.append(source)
                else:
                    result.other_line.append((source, t, o))
    return result


@pytest.mark.parametrize("line", LINES)
def test_validate_gives_nats_server_t_verdict_on_every_published_config(line, corpus):
    if not binary(line).exists():
        pytest.skip(f"no nats-server {line} in .tools: run scripts/nats-servers.sh (this line is not compared)")
    result = compare(line, corpus)
    known = read_known()

    def listed(source: Source) -> bool:
        return any(source.sha256.startswith(prefix) and at in (line, "all") for prefix, at in known)

    unexpected = [f"{s}: -t {t[1]!r} / validate {o[1]!r}" for s, t, o in result.differ if not listed(s)]
    unexpected += [f"{s}: -t lines {t[2]} / validate {o[2]}" for s, t, o in result.other_line if not listed(s)]
    assert not unexpected, "\n".join(unexpected)
    differing = {s.sha256 for s, _, _ in result.differ} | {s.sha256 for s, _, _ in result.other_line}
    stale = [
        f"{prefix} ({cause})"
        for (prefix, at), cause in known.items()
        if at in (line, "all")
        and not cause.startswith("random:")
        and not any(sha.startswith(prefix) for sha in differing)
    ]
    assert not stale, "listed in validate_module_corpus_known.tsv but validate now agrees: " + "; ".join(stale)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="store_true", help="list the corpus anew from MODULES")
    parser.add_argument("--validate", help="the validate command to compare (default: python -m subjxform validate)")
    parser.add_argument("--lines", default=",".join(LINES), help="the lines to compare (comma-separated)")
    parser.add_argument(
        "--write-known", action="store_true", help="list every difference measured now as known (then edit causes)"
    )
    args = parser.parse_args()
    if args.build:
        sources = build()
        write_sources(sources)
        print(f"{len(sources)} distinct configs from {len(MODULES)} module versions")
        return 0
    validate = args.validate.split() if args.validate else VALIDATE
    causes = read_known()
    differing: dict[str, tuple[list[str], str]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        corpus = lay_out(read_sources(), Path(scratch))
        for line in args.lines.split(","):
            started = time.monotonic()
            r = compare(line, corpus, validate)
            for s, t, _ in r.differ + r.other_line:
                cause = next((c for (p, _), c in causes.items() if s.sha256.startswith(p)), None)
                said = t[2][0][2] if t[2] else t[1].split(": ", 1)[-1] if t[1] else "valid"
                differing.setdefault(s.sha256[:12], ([], cause or f"-t: {said}"))[0].append(line)
            print(
                f"{line}: {len(r.agree)}/{r.total} verdicts agree; where both refuse and -t names a line, "
                f"validate names it too in {len(r.same_line)}/{len(r.both_refuse_named)} "
                f"({time.monotonic() - started:.0f} s)"
            )
            for s, t, o in r.differ:
                print(f"  {s.sha256[:12]} {s}: -t {'valid' if t[0] else t[1]!r} / validate {o[1]!r}")
            for s, t, o in r.other_line:
                print(f"  {s.sha256[:12]} {s}: -t lines {t[2]} / validate {o[2]}")
    if args.write_known:
        header = [r for r in KNOWN.read_text(encoding="utf-8").splitlines() if r.startswith("#")]
        rows = [f"{sha}\t{','.join(lines)}\t{cause}" for sha, (lines, cause) in sorted(differing.items())]
        KNOWN.write_text("\n".join(header + rows) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
