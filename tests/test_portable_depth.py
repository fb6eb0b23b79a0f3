"""How deep the portable expressions nest: a Spark Connect client sends a Column as nested protobuf messages
(two a level, under the plan's own) and refuses a message nested more than 100 deep ("Exceeded
upb_DecodeOptions_MaxDepth"). Measured with a select over a local frame: a chain of 48 levels runs, 56 fails
(issue 31: an FNV-1a chain unrolled byte by byte built 66). The bound keeps every tree the golden cases build
some levels under that, for the DataFrame operations around it; it is checked without Spark (which function
and case built a deeper tree), and in the session, which over Connect (SUBJXFORM_SPARK_MODE=nojar-connect)
sends a tree at the bound and the deepest golden tree."""

from __future__ import annotations

from pyspark.sql import functions as F

from conftest import golden
from subjxform import portable
from subjxform.portable import _expr as E

# Above today's deepest (34: a keyed draw's bindings), under the 48 that run.
MAX_DEPTH = 40


def depth(node: E.Node) -> int:
    """Levels on the deepest path; a lambda (aggregate, a Let's transform) counts as the three levels it
    is sent as (the function, its lambda, the array)."""
    memo: dict[int, int] = {}

    def d(n: E.Node) -> int:
        if id(n) not in memo:
            children: list[E.Node] = []
            if isinstance(n, E.Call):
                children = list(n.args)
            elif isinstance(n, E.Case):
                children = [x for pair in n.whens for x in pair] + ([n.otherwise] if n.otherwise else [])
            elif isinstance(n, E.Aggregate):
                children = [n.array, n.start, n.merge]
            elif isinstance(n, E.Let):
                children = [n.value, n.body]
            own = 3 if isinstance(n, (E.Aggregate, E.Let)) else 1
            memo[id(n)] = own + max((d(c) for c in children), default=0)
        return memo[id(n)]

    return d(node)


def trees():
    """(case, tree) for every accepted golden transform and table, unkeyed and keyed (a keyed draw nests)."""
    seen = set()
    for c in golden("transform_cases.jsonl"):
        if c["accepted"] and (c["src"], c["dest"]) not in seen:
            seen.add((c["src"], c["dest"]))
            for kw in ({"seed": 1}, {"seed": 1, "key": "k"}):
                yield f"{c['id']} {kw}", portable.tree_of("subject_transform", c["src"], c["dest"], **kw)
    for c in golden("map_cases.jsonl"):
        if c["accepted"] and c["mappings"] not in seen:
            seen.add(c["mappings"])
            for kw in ({"seed": 1}, {"seed": 1, "key": "k"}):
                yield f"{c['id']} {kw}", portable.tree_of("subject_map", c["mappings"], **kw)


def test_every_golden_tree_fits_spark_connect():
    deepest = max(((depth(t), case) for case, t in trees()), key=lambda p: p[0])
    assert deepest[0] <= MAX_DEPTH, f"{deepest[1]} builds a tree {deepest[0]} levels deep (at most {MAX_DEPTH})"


def chain(levels: int) -> E.Node:
    node: E.Node = E.lit("x")
    for _ in range(levels - 1):
        node = E.call("upper", node)
    return node


def test_the_depth_counts_levels():
    assert depth(chain(MAX_DEPTH + 1)) == MAX_DEPTH + 1


def test_a_tree_at_the_bound_and_the_deepest_golden_tree_run_in_the_session(session):
    """Over Spark Connect (SUBJXFORM_SPARK_MODE=nojar-connect) this is what the bound stands for: a Column of
    MAX_DEPTH levels, and the deepest tree the golden cases build, are sent, run and answer."""
    at_bound = E.to_column(chain(MAX_DEPTH), {})
    _, deepest = max(trees(), key=lambda pair: depth(pair[1]))
    frame = session.createDataFrame([("orders.eu.42", "k")], "subject string, k string")
    row = frame.select(
        at_bound.alias("c"), E.to_column(deepest, {"subject": F.col("subject"), "key": F.col("k")})
    ).first()
    assert row["c"] == "X"


def test_the_subjects_type_is_checked_once_around_the_whole_tree(session):
    """That the subject is a STRING is checked once, around the result: checked at each of the subject's reads
    (a slice reads it a dozen times) it made a transform's tree five times larger, and Spark took 2.6 times as
    long to analyse it (the tree a Connect client sends grew alike)."""
    column = portable.subject_transform("subject", "a.*.*", "x.{{splitfromleft(1,2)}}.{{wildcard(2)}}")
    text = str(column)
    assert text.count("requires the STRING type") == 1, text[:3000]
    frame = session.createDataFrame([("a.bcd.e",), (None,)], "subject string")
    assert [r[0] for r in frame.select(column).collect()] == ["x.bc.d.e", None]
