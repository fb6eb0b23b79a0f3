"""Golden files for partitioned consumer groups: tests/golden/pcgroups/{validation,assignment}.jsonl, the
cases below run through tests/pcgroups_oracle (a Go program built against the published
github.com/synadia-io/orbit.go/pcgroups v0.2.2 and nats-server v2.15.1's subject transform, both pinned in
its go.mod).

Regenerate (needs Go; the modules come from the Go module proxy; a cold build takes about 2 minutes):

    python3 tests/pcgroups_goldens.py            # rewrite the goldens
    python3 tests/pcgroups_goldens.py --check    # exit 1 if the library no longer gives what they say

Each output line: ``kind`` (elastic/static), ``config`` (the KV value's JSON), ``valid``, ``error`` (the
library's message, or the server's when the library accepts a filter the sourcing stream refuses),
``transforms`` (the sourcing transforms of an elastic group), ``filters`` (every member's consumer filters,
from GeneratePartitionFilters) and ``subjects`` (each subject's ``partition`` and ``member``; null where no
filter of the group takes it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "pcgroups_oracle")
GOLDEN = os.path.join(HERE, "golden", "pcgroups")


def elastic(max_members, filters=None, members=None, mappings=None, **extra) -> dict:
    config: dict = {"max_members": max_members, "partitioning_filters": filters}
    if members is not None:
        config["members"] = members
    if mappings is not None:
        config["member_mappings"] = [{"member": m, "partitions": p} for m, p in mappings]
    config.update(extra)
    return {"kind": "elastic", "config": config}


def static(max_members, filters=None, members=None, mappings=None) -> dict:
    config: dict = {"max_members": max_members, "filters": filters or []}
    if members is not None:
        config["members"] = members
    if mappings is not None:
        config["member_mappings"] = [{"member": m, "partitions": p} for m, p in mappings]
    return {"kind": "static", "config": config}


def pf(filter_: str, *wildcards: int) -> dict:
    return {"filter": filter_, "partitioning_wildcards": list(wildcards)}


def validation_cases() -> list[dict]:
    foo = [pf("foo.*", 1)]
    cases = [
        # the library's own TestBaseFunctions, in order
        elastic(2, foo, members=["m1", "m2"]),
        elastic(2, foo, members=["m1", "m2"], mappings=[("m1", [0, 1])]),
        elastic(2, foo, mappings=[("m1", [0, 1])]),
        elastic(2, foo, mappings=[("m1", [1, 1])]),
        elastic(2, foo, mappings=[("m1", [1])]),
        elastic(2, foo, mappings=[("m1", [0, 1, 2])]),
        elastic(2, foo, mappings=[("m1", [0, 2])]),
        elastic(2, foo, mappings=[("m1", [0, 1]), ("m1", [0, 1])]),
        elastic(2, foo, mappings=[("m1", [0, 1]), ("m2", [0, 1])]),
        elastic(2, foo, mappings=[("m1", [0, 1]), ("m2", [2, 3])]),
        elastic(2, foo, mappings=[("m1", [0]), ("m2", [1])]),
        elastic(3, foo, mappings=[("m1", [0]), ("m2", [1])]),
        elastic(3, foo, mappings=[("m1", [0, 2]), ("m2", [1, 2])]),
        elastic(3, foo, mappings=[("m1", [0, 2]), ("m2", [1])]),
        # every other check of validateConfig
        elastic(0, foo, members=["a"]),
        elastic(2, [pf("")]),
        elastic(2, [pf("foo.bar")]),
        elastic(2, [pf("foo.bar.>")]),
        elastic(2, [pf(">")]),
        elastic(2, [pf("foo.>", 1)]),
        elastic(2, [pf("foo.*", 1, 2)]),
        elastic(2, [pf("foo.*.*", 2, 2)]),
        elastic(2, [pf("foo.*.*", 3)]),
        elastic(2, [pf("foo.*.*", 0)]),
        elastic(2, [pf("foo.*.*", -1)]),
        elastic(2, [pf("foo.*"), pf("bar.baz")]),
        elastic(2, foo, mappings=[("a", [0]), ("b", [1]), ("c", [])]),
        elastic(2, foo, mappings=[("a", [-1, 0, 1])]),
        elastic(2, foo, mappings=[("a", [0, 1]), ("b", [])]),
        elastic(2, foo, members=[]),
        elastic(2, foo, members=["a", "a", "b", "c"]),
        # filters the library accepts and nats-server's sourcing transform refuses
        elastic(2, [pf("foo..*", 1)]),
        elastic(2, [pf("foo.>.*", 1)]),
        # the static checks (same reasons, one worded apart)
        static(0, members=["a"]),
        static(2, members=["a"], mappings=[("a", [0, 1])]),
        static(2, mappings=[("a", [0]), ("b", [1]), ("c", [])]),
        static(2, mappings=[("a", [0]), ("a", [1])]),
        static(2, mappings=[("a", [0, 0, 1])]),
        static(2, mappings=[("a", [0, 2])]),
        static(3, mappings=[("a", [0]), ("b", [1])]),
        static(2, ["foo.*"], mappings=[("a", [1]), ("b", [0])]),
        static(2, ["foo..bar"], members=["a"]),
        static(2, ["foo.>.bar"], mappings=[("a", [0, 1])]),  # with mappings, the filters are not used
        static(2, ["foo.*", "foo.bar"], members=["a"]),
        static(2, ["foo.*", "foo.*"], members=["a"]),
        static(2, ["foo.*", "foo.*"], mappings=[("a", [0, 1])]),
        elastic(2, [pf("foo.*", 1), pf("foo.>")]),
        elastic(2, [pf("foo.*", 1), pf("foo.*")]),
        elastic(2, [pf("foo.*", 1), pf("bar.*"), pf("*.baz")]),
        # what the JSON itself may be (Go's encoding/json reads it: keys case-insensitively, unknown keys ignored)
        {"kind": "elastic", "config": {"MAX_MEMBERS": 2, "Partitioning_Filters": foo, "Members": ["a"]}},
        {
            "kind": "elastic",
            "config": {
                "max_members": 2,
                "partitioning_filters": foo,
                "members": ["a"],
                "max_buffered_msg": 10,
                "other": 1,
            },
        },
        {"kind": "elastic", "config": {"max_members": 2, "partitioning_filters": None, "members": None}},
        {"kind": "elastic", "config": {"max_members": -1, "partitioning_filters": foo}},
        {"kind": "elastic", "config": {"max_members": 2.5, "partitioning_filters": foo}},
        {"kind": "elastic", "config": {"max_members": "2", "partitioning_filters": foo}},
        {"kind": "elastic", "config": [1, 2]},
        {
            "kind": "elastic",
            "config": {
                "max_members": 2,
                "partitioning_filters": [{"filter": "foo.*", "partitioning_wildcards": ["1"]}],
            },
        },
        {"kind": "elastic", "config": {"max_members": 2, "partitioning_filters": foo, "members": "a"}},
        {"kind": "static", "config": {"max_members": 2, "filters": "foo.*"}},
        {
            "kind": "static",
            "config": {"max_members": 2, "filters": [], "member_mappings": [{"member": "a", "partitions": [0, 1.5]}]},
        },
    ]
    for case in cases:
        case["subjects"] = ["foo.x", "foo.y.z", "0.foo.x", "1.foo.y"]
    return cases


def traffic(n: int) -> list[str]:
    """Subjects of several shapes, deterministic: orders.<region>.<customer>, 3-token and deeper ones, ..."""
    regions = ["eu", "us", "ap", "sa"]
    out = []
    for i in range(n):
        out.append(f"orders.{regions[i % 4]}.c{i * 7919 % 1000}")
        if i % 3 == 0:
            out.append(f"orders.{regions[i % 4]}.c{i}.items.{i % 5}")
        if i % 5 == 0:
            out.append(f"events.k{i}")
        if i % 11 == 0:
            out.append(f"other.{i}")
    return out


def partitioned(n: int, partitions: int) -> list[str]:
    """Subjects of an already partitioned stream (a static group's), some with partitions out of range."""
    out = []
    for i in range(n):
        p = i % (partitions + 2)
        out.append(f"{p}.orders.c{i}")
        if i % 4 == 0:
            out.append(f"{p}.events.k{i}")
    out += ["00.orders.c1", "+1.orders.c1", "-1.orders.c1", "x.orders.c1", "1", "1.orders"]
    return out


def assignment_cases() -> list[dict]:
    orders = [pf("orders.*.*", 2)]
    # the library's own TestBaseFunctions assignment, then block + round-robin over many (N, members)
    grid = [elastic(n, [pf("foo.*.*.>", 1, 2)], members=["m1", "m2", "m3"]) for n in (4, 6, 7, 8)]
    for n in (1, 2, 3, 5, 8, 10, 13):
        for k in range(1, n + 3):
            grid.append(elastic(n, orders, members=[f"w{(j * 5) % 17:02d}" for j in range(k)]))
    for case in grid:
        case["subjects"] = traffic(16)
    cases = [
        elastic(4, orders, members=["b", "a", "b", "c", "a"]),  # duplicates and order
        elastic(4, orders, members=["\uff21", "\U0001f600", "é", "a", "Z"]),  # UTF-8 byte order (not UTF-16), cut to 4
        elastic(4, orders, members=[]),
        elastic(4, orders, mappings=[("x", [3, 0]), ("y", [1]), ("z", [2])]),
        elastic(6, [pf("orders.*.*", 1, 2), pf("events.*")], members=["a", "b"]),
        elastic(6, [pf("orders.*.*", 2, 1)], members=["a", "b", "c", "d"]),
        elastic(5, [pf("*.*.*")], members=["a", "b"]),
        elastic(5, None, members=["a", "b"]),  # no partitioning filter: the whole stream, {{Partition(5)}}.>
        elastic(5, [], mappings=[("a", [4, 2, 0]), ("b", [1, 3])]),
        elastic(8, [pf("orders.*.*.>", 2)], members=["a", "b", "c"]),
        elastic(1000, orders, members=["a", "b", "c"]),
    ]
    for case in cases:
        case["subjects"] = traffic(120)
    cases = grid + cases
    for case in cases:
        case["probe_members"] = ["nobody"]
    statics = [
        static(4, members=["a", "b", "c"]),
        static(4, ["events.*", "orders.>"], members=["a", "b"]),
        static(4, ["orders.*"], mappings=[("a", [0, 1]), ("b", [2, 3])]),  # mappings ignore the filters
        static(4, members=[]),
        static(3, members=["c", "a", "b", "a"]),
        static(6, ["events.*"], members=["a", "b", "c", "d"]),
    ]
    for case in statics:
        case["subjects"] = partitioned(40, case["config"]["max_members"])
        case["probe_members"] = ["nobody"]
    return cases + statics


def run_oracle(cases: list[dict]) -> list[dict]:
    binary = os.path.join(ORACLE, "pcgroups_oracle.bin")
    subprocess.run(["go", "build", "-o", binary, "."], cwd=ORACLE, check=True)
    try:
        done = subprocess.run(
            [binary], input="".join(json.dumps(c) + "\n" for c in cases), capture_output=True, text=True, check=True
        )
    finally:
        os.remove(binary)
    return [json.loads(line) for line in done.stdout.splitlines()]


def main(check: bool) -> int:
    os.makedirs(GOLDEN, exist_ok=True)
    stale = []
    for name, cases in (("validation", validation_cases()), ("assignment", assignment_cases())):
        results = run_oracle(cases)
        assert len(results) == len(cases), (name, len(results), len(cases))
        path = os.path.join(GOLDEN, name + ".jsonl")
        text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in results)
        if check:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    stale.append(path)
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{path}: {len(results)} cases", file=sys.stderr)
    for path in stale:
        print(f"{path} differs from what the oracle gives now: rerun without --check", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(check="--check" in sys.argv[1:]))
