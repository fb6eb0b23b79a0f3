"""The jar's column functions and the no-jar ones are one API: every portable function has its jar twin with
the same parameters (names, order, kinds, defaults), so that switching `from subjxform import x` for
`from subjxform.portable import x` never changes a call. Their argument checks are one copy
(subjxform.arguments), so the same wrong argument is refused with the same words by both."""

from __future__ import annotations

import inspect

import pytest

import subjxform.functions as jar
import subjxform.groups as jar_groups
import subjxform.portable as portable
import subjxform.portable.groups as portable_groups

# What only one path has, on purpose: SQL text (the portable path's own), the trees under it, and what the jar
# alone computes (a plan of a whole group, the balance reports).
PORTABLE_ONLY = {"sql_expression", "tree_of", "partition_tree", "member_tree"}
JAR_ONLY = {"consumer_group_plan", "group_balance", "group_diff"}


def public_functions(module) -> dict:
    return {
        name: f
        for name, f in vars(module).items()
        if inspect.isfunction(f) and not name.startswith("_") and f.__module__ == module.__name__
    }


PAIRS = [(portable, jar), (portable_groups, jar_groups)]


def parameters(f) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]


@pytest.mark.parametrize("ours,theirs", PAIRS, ids=["functions", "groups"])
def test_both_paths_offer_the_same_functions(ours, theirs):
    portable_names = set(public_functions(ours)) - PORTABLE_ONLY
    jar_names = set(public_functions(theirs)) - JAR_ONLY
    assert portable_names == jar_names


@pytest.mark.parametrize(
    "ours,theirs,name",
    [(o, t, n) for o, t in PAIRS for n in sorted(set(public_functions(o)) - PORTABLE_ONLY)],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_each_function_has_the_same_parameters_and_defaults_on_both_paths(ours, theirs, name):
    assert parameters(public_functions(ours)[name]) == parameters(public_functions(theirs)[name])


WRONG = [
    (
        "subject_transform",
        dict(subject=1, src="a", dest="b"),
        "subject must be a column name (str) or a Column, not int",
    ),
    ("subject_transform", dict(subject="s", src="a", dest="b", strict="yes"), "strict must be True or False, not str"),
    (
        "subject_transform",
        dict(subject="s", src="a", dest="b", seed=1.9),
        "seed must be an integer (or None), not float",
    ),
    ("subject_transform", dict(subject="s", src="a", dest="b", seed=2**63), "seed must fit in a BIGINT"),
    ("subject_transform", dict(subject="s", src="a", dest="b", server_version=2.1), "server_version must be a str"),
    ("subject_transform", dict(subject="s", src=3, dest="b"), "src must be a str (a constant) or a Column, not int"),
    ("subject_map", dict(subject="s", mappings=5), "mappings must be a str, a dict or a Column, not int"),
    ("subject_map", dict(subject="s", mappings={"a": "b"}, cluster=7), "cluster must be a str (a constant)"),
    ("subject_filter_transform", dict(subject="s", transforms="a"), "transforms must be a list of (src, dest) pairs"),
    ("subject_filter_transform", dict(subject="s", transforms=[("a",)]), "transforms[0]: a (src, dest) pair has 2"),
]


@pytest.mark.parametrize("name,kwargs,words", WRONG, ids=[f"{n}-{w[:24]}" for n, _, w in WRONG])
def test_a_wrong_argument_is_refused_with_the_same_words_on_both_paths(spark, name, kwargs, words):
    # (a session: the jar path builds its columns with pyspark's functions, which need one)
    refusals = []
    for module in (jar, portable):
        with pytest.raises((TypeError, ValueError)) as e:
            getattr(module, name)(**kwargs)
        refusals.append((type(e.value), str(e.value)))
    assert refusals[0] == refusals[1]
    assert words in refusals[0][1]
