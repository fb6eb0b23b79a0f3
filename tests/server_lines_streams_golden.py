"""Per-line stream goldens: generated stream scenarios (ingress, source and mirror transforms, republish, the
implicit republish, overlapping source filters; the kinds of issue 28 among them) replayed through each line's
live JetStream server, written to tests/golden/servers/<line>/streams.jsonl. tests/test_server_lines_streams_golden.py
checks stream_plan / stream_messages against them without servers.

Then the scenarios of what 2.10 checks otherwise (line_difference_scenarios), republish and ingress
transform sources with white space (white_space_source_scenarios), and ingress, mirror and source destinations
with white space (white_space_dest_scenarios: 2.10 builds its stream transforms as transforms alone and stores
what they build).

Regenerate (needs the binaries: scripts/nats-servers.sh installs them into .tools/nats-server/):

    bash scripts/nats-servers.sh && python3 tests/server_lines_streams_golden.py

One record a scenario: `config` (the stream), `messages` ([subject, origin] published: origin "O" for the stream
every source and mirror reads, null for a direct publish), the server's `error` ([description, code]) or its
`stored` subjects with their counts, `inactive` (a source's error code when its consumer failed) and the subjects
a `>` subscriber received as `republished`. Each line's binary answers for itself; the scenarios are the same.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from nats_client import NatsClient, jetstream_server  # noqa: E402
from server_lines_golden import LINES, ROOT, binary  # noqa: E402

SEED = 28
PER_LINE = 240
ORIGIN = "O"
ORIGIN_SUBJECTS = ["o.ab.cd", "o.--.x", "o.k.m", "o.z.m", "o.k.q", "o.abcd.e-f"]

# Destination tails after a scenario's own prefix, for a source `<p>.*.*` (two wildcards): functions every line
# knows, ones only later lines know or only parsers read (left/right/random), white space, empty pieces.
DESTS = [
    "$1.$2",
    "{{wildcard(2)}}.$1",
    "{{split(1,-)}}.$2",
    "{{left(1,2)}}.$2",
    "{{right(1,2)}}",
    "a b.$1",
    "{{partition(3,1,2)}}",
    "{{splitfromleft(1,1)}}.$2",
    "{{slicefromright(1,2)}}",
    "$2",
    "{{unknown(1)}}",
    "{{wildcard(3)}}",
    "x..$1",
    "{{ Split(1,-) }}.$2",
]


def scenarios(seed: int = SEED, n: int = PER_LINE) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        kind = ["ingress", "source", "mirror", "republish", "implicit", "overlap"][i % 6]
        d = rng.choice(DESTS)
        d2 = rng.choice(DESTS)
        name = f"T{i}"
        if kind == "ingress":
            cfg = {
                "name": name,
                "subjects": [f"i{i}.*.*"],
                "subject_transform": {"src": f"i{i}.*.*", "dest": f"v{i}.{d}"},
            }
            msgs = [[f"i{i}.{s[2:]}", None] for s in ORIGIN_SUBJECTS]
        elif kind == "source":
            ts = [{"src": "o.*.*", "dest": f"s{i}.{d}"}]
            if rng.random() < 0.3:
                ts = [{"src": "o.k.*", "dest": f"s{i}.k.{d2.replace('$2', '$1')}"}, {"src": "o.z.*", "dest": ""}]
            cfg = {"name": name, "sources": [{"name": ORIGIN, "subject_transforms": ts}]}
            msgs = [[s, ORIGIN] for s in ORIGIN_SUBJECTS]
        elif kind == "mirror":
            cfg = {
                "name": name,
                "mirror": {"name": ORIGIN, "subject_transforms": [{"src": "o.*.*", "dest": f"m{i}.{d}"}]},
            }
            msgs = [[s, ORIGIN] for s in ORIGIN_SUBJECTS]
        elif kind == "republish":
            cfg = {"name": name, "subjects": [f"r{i}.*.*"], "republish": {"src": f"r{i}.*.*", "dest": f"rp{i}.{d}"}}
            msgs = [[f"r{i}.{s[2:]}", None] for s in ORIGIN_SUBJECTS]
        elif kind == "implicit":
            ingress = rng.choice([f"w{i}.>", f"w{i}.$1.>", f"w{i}.{{{{split(1,-)}}}}.>", f"w{i}.x.>"])
            src = f"u{i}.*.>" if "$1" in ingress or "split" in ingress else f"u{i}.>"
            cfg = {
                "name": name,
                "subjects": [src],
                "subject_transform": {"src": src, "dest": ingress},
                "republish": {"src": ">", "dest": ">"},
            }
            msgs = [[f"u{i}.{s[2:]}", None] for s in ORIGIN_SUBJECTS]
        else:
            a, b = rng.choice([("o.*.m", "o.k.*"), ("o.*.*", "o.k.*"), ("o.ab.*", "o.k.*"), ("o.*.x", "o.--.*")])
            cfg = {
                "name": name,
                "sources": [
                    {
                        "name": ORIGIN,
                        "subject_transforms": [{"src": a, "dest": f"ov{i}.a.$1"}, {"src": b, "dest": f"ov{i}.b.$1"}],
                    }
                ],
            }
            msgs = [[s, ORIGIN] for s in ORIGIN_SUBJECTS]
        # White space in a republished subject breaks a subscriber's protocol line on the releases that send it.
        if "republish" in cfg and any(c.isspace() for c in cfg["republish"]["dest"]):
            cfg["republish"]["dest"] = cfg["republish"]["dest"].replace(" ", "_")
        out.append({"kind": kind, "config": cfg, "messages": msgs})
    return out


# 2.10's own checks (issue 28): it refuses an empty src in a source's or mirror's transforms; it builds the
# transforms (and checks the ingress one) only when it adds the stream, after every other check; a bad ingress
# src is its 10049 "invalid subject". A destination every line's parser reads; one 2.10 and 2.11 cannot build
# (`partition` of the whole subject, from 2.12): the other error of a config comes first on 2.10 and 2.12 on.
EMPTY_SRC_DESTS = ["", ">", "x", "$1", "{{partition(3)}}"]
ALL_SUBJECT = "{{partition(3)}}"
BAD_INGRESS_SOURCES = [".orders", "a..b", "x.>.y", "g.*", ">", ""]
PER_KIND = 12


def line_difference_scenarios(seed: int = SEED, first: int = PER_LINE, n: int = PER_KIND) -> list[dict]:
    """Scenarios of what 2.10 checks otherwise (empty src, the order of several errors, the ingress src), named
    after the generated ones (T<first>...)."""
    rng = random.Random(seed + 1)
    out = []
    for k in range(3 * n):
        i = first + k
        kind = ["empty_src", "several_errors", "ingress_src"][k % 3]
        name = f"T{i}"
        msgs = [[s, ORIGIN] for s in ORIGIN_SUBJECTS]
        if kind == "empty_src":
            dest = rng.choice(EMPTY_SRC_DESTS)
            ts = [{"src": "", "dest": f"e{i}.{dest}" if dest else ""}]
            if rng.random() < 0.5:
                ts.insert(rng.randrange(2), {"src": "o.k.*", "dest": f"e{i}.k.$1"})
            field = rng.choice(["sources", "mirror"])
            origin = {"name": ORIGIN, "subject_transforms": ts}
            cfg = {"name": name, "sources": [origin]} if field == "sources" else {"name": name, "mirror": origin}
        elif kind == "several_errors":
            bad = {"name": ORIGIN, "subject_transforms": [{"src": "o.*.*", "dest": f"b{i}.{ALL_SUBJECT}"}]}
            other = rng.choice(
                [
                    "duplicate",
                    "cycle",
                    "subjects",
                    "republish_cycle",
                    "republish",
                    "name",
                    "dest",
                    "mirror_republish",
                    "ingress",
                ]
            )
            cfg = {"name": name, "sources": [bad]}
            if other == "duplicate":
                cfg["sources"].append(json.loads(json.dumps(bad)))
            elif other == "cycle":
                cfg["sources"].append({"name": name})
            elif other == "subjects":
                cfg["subjects"] = rng.choice([[f"q{i}.*", f"q{i}.a"], [f"q{i}..x"]])
            elif other == "republish_cycle":
                cfg["subjects"] = [f"q{i}.*"]
                cfg["republish"] = {"src": f"q{i}.*", "dest": f"q{i}.>"}
            elif other == "republish":
                cfg["republish"] = {"src": ">", "dest": f"rp{i}.$3"}
            elif other == "name":
                cfg["sources"].append({"name": "a.b"})
            elif other == "dest":
                cfg["sources"].append(
                    {"name": "P", "subject_transforms": [{"src": "o.*.*", "dest": f"b{i}.{{{{unknown(1)}}}}"}]}
                )
            elif other == "mirror_republish":
                cfg = {"name": name, "mirror": bad, "republish": {"src": ">", "dest": f"rp{i}.$3"}}
            else:
                cfg["subjects"] = [f"q{i}.*"]
                cfg["subject_transform"] = {"src": rng.choice(BAD_INGRESS_SOURCES[:3]), "dest": "x"}
        else:
            src = rng.choice(BAD_INGRESS_SOURCES).replace("g.", f"g{i}.")
            dest = rng.choice(["x", "", f"n{i}.$1", f"n{i}.>"])
            cfg = {"name": name, "subjects": [f"g{i}.*"], "subject_transform": {"src": src, "dest": dest}}
            msgs = [[f"g{i}.{s.split('.')[1]}", None] for s in ORIGIN_SUBJECTS]
        out.append({"kind": kind, "config": cfg, "messages": msgs})
    return out


def white_space_source_scenarios(first: int = PER_LINE + 3 * PER_KIND) -> list[dict]:
    """A republish src, and an ingress transform src, with white space: every line checks a republish's source
    only as a transform's (no empty token, `>` last only: white space passes, and the src matches nothing); 2.10
    checks its ingress transform's source so too, later lines as a subject (10155). Named after the others
    (T<first>...); `{p}` is the scenario's own subject prefix."""
    republish = [
        ("e1 x", "r.>"),  # refused on every line: `>` in dest only
        (" e1", "r.>"),
        ("e1.>", "r.>"),
        ("a b.*", "r.>"),
        ("e1 x", "r.x"),
        (" {p}", "r.x"),
        ("{p}\tx", "r.x"),
        ("{p} x.>", "r.>"),
        ("a b.*", "r.$1"),
        ("{p}.a b", "r.x"),
        ("{p}.>", "r.>"),  # beside them: a republish that matches
        ("a..b", "r.x"),
    ]
    ingress = [("e1 x", "x"), (" e1", "x"), ("{p}\tx", "x"), ("{p} x.*", "n.$1"), ("{p}.a b", "x"), ("e1 x", "r.>")]
    out = []
    for k, (src, dest) in enumerate(republish + ingress):
        i = first + k
        p = f"ws{i}"
        msgs = [[f"{p}.{t}", None] for t in ("ab", "k")]
        if k < len(republish):
            # The destination's first token is the scenario's own (the subscriber tells its republished subjects
            # by it): "r.>" is "r<i>.>".
            dest = f"r{i}{dest[1:]}"
            cfg = {"name": f"T{i}", "subjects": [f"{p}.*"], "republish": {"src": src.format(p=p), "dest": dest}}
            kind = "white_space_republish"
        else:
            cfg = {"name": f"T{i}", "subjects": [f"{p}.*"], "subject_transform": {"src": src.format(p=p), "dest": dest}}
            kind = "white_space_ingress"
        out.append({"kind": kind, "config": cfg, "messages": msgs})
    return out


def white_space_dest_scenarios(first: int = PER_LINE + 3 * PER_KIND + 18) -> list[dict]:
    """Destinations with white space in a literal token (a space, a tab): an ingress transform and a mirror's (2.10
    stores what they build: `v.hello world.a`, `m x.abcdef.x`), a source's (2.10 refuses it, 10146); 2.11 on refuse
    them all as mapping destinations. Named after the others (T<first>...)."""
    out = []
    for k, (kind, src, dest) in enumerate(
        [
            ("ingress", "u{i}.*", "v{i}.hello world.$1"),
            ("ingress", "u{i}.*", "v{i}.hello\tworld.$1"),
            ("ingress", "u{i}.*", "v{i}.{{{{left(1,2)}}}}. x.$1"),
            ("mirror", "o.>", "m{i} x.>"),
            ("mirror", "o.*.*", "m{i}.a\tb.{{{{slicefromleft(1,2)}}}}.$2"),
            ("source", "o.>", "s{i}.a b.>"),
        ]
    ):
        i = first + k
        t = {"src": src.format(i=i), "dest": dest.format(i=i)}
        if kind == "ingress":
            cfg = {"name": f"T{i}", "subjects": [f"u{i}.*"], "subject_transform": t}
            msgs = [[f"u{i}.{x}", None] for x in ("a", "abcdef")]
        else:
            origin = {"name": ORIGIN, "subject_transforms": [t]}
            cfg = {"name": f"T{i}", "mirror": origin} if kind == "mirror" else {"name": f"T{i}", "sources": [origin]}
            msgs = [[x, ORIGIN] for x in ORIGIN_SUBJECTS]
        out.append({"kind": f"white_space_{kind}_dest", "config": cfg, "messages": msgs})
    return out


def run_line(line: str, cases: list[dict]) -> list[dict]:
    with jetstream_server(binary(line)) as port:
        client = NatsClient(port)
        try:
            assert "error" not in client.request(
                f"$JS.API.STREAM.CREATE.{ORIGIN}", {"name": ORIGIN, "subjects": ["o.>"]}
            )
            client.subscribe(">")
            errors = []
            for c in cases:
                r = client.request(f"$JS.API.STREAM.CREATE.{c['config']['name']}", c["config"])
                errors.append([r["error"]["description"], r["error"]["err_code"]] if "error" in r else None)
            for s in ORIGIN_SUBJECTS:
                assert "error" not in client.request(s, b"m")
            for c, e in zip(cases, errors):
                if e is None:
                    for subject, origin in c["messages"]:
                        if origin is None:
                            client.request(subject, b"m")
            time.sleep(3)  # sourcing and mirroring are asynchronous
            out = []
            for c, e in zip(cases, errors):
                rec = {"kind": c["kind"], "config": c["config"], "messages": c["messages"], "error": e}
                if e is None:
                    info = client.request(f"$JS.API.STREAM.INFO.{c['config']['name']}", {"subjects_filter": ">"})
                    rec["stored"] = info["state"].get("subjects", {})
                    failed = [
                        s["error"]["err_code"]
                        for s in (info.get("sources") or []) + [info.get("mirror") or {}]
                        if s.get("error")
                    ]
                    rec["inactive"] = failed[0] if failed else None
                    prefix = _republish_prefix(c["config"]) if "republish" in c["config"] else None
                    rec["republished"] = sorted(client.received(prefix)) if prefix else []
                out.append(rec)
            return out
        finally:
            client.close()


def _republish_prefix(cfg: dict) -> str | None:
    """The first token every republished subject of this scenario starts with (unique to it)."""
    rp = cfg["republish"]
    dest = rp["dest"]
    if dest == ">" and "subject_transform" in cfg:
        dest = cfg["subject_transform"]["dest"]
    first = dest.split(".")[0]
    return first + "." if first not in (">", "*") else None


def all_scenarios() -> list[dict]:
    """Every scenario each line's (and every release's) JetStream server is given."""
    return scenarios() + line_difference_scenarios() + white_space_source_scenarios() + white_space_dest_scenarios()


def main() -> None:
    cases = all_scenarios()
    for line in LINES:
        records = run_line(line, cases)
        path = os.path.join(ROOT, "tests", "golden", "servers", line, "streams.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
        print(
            f"{line}: {sum(r['error'] is None for r in records)} created, "
            f"{sum(r['error'] is not None for r in records)} refused -> {path}"
        )


if __name__ == "__main__":
    main()
