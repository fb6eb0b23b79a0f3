"""docs/concepts/server-releases.md's table is the capability table, a row per release: the page matches what
tests/server_releases_doc.py renders from subjxform.grammar.server_version, and that port matches the jar's
ServerVersion row for row and field for field (the jar's table is the one the functions follow)."""

from __future__ import annotations

import dataclasses

from server_releases_doc import PAGE, page_table, render
from subjxform.grammar import server_version as versions

ALL_FUNCTIONS = (
    "wildcard",
    "partition",
    "splitfromleft",
    "splitfromright",
    "slicefromleft",
    "slicefromright",
    "split",
    "left",
    "right",
    "random",
)


def test_the_page_shows_the_table_in_the_code():
    with open(PAGE, encoding="utf-8") as f:
        assert page_table(f.read()) == render(), "run: PYTHONPATH=python/src python3 tests/server_releases_doc.py"


def test_the_page_lists_each_release_by_number():
    """The site's search finds a release by its number ("2.12.3"): the table has a row for each one published."""
    with open(PAGE, encoding="utf-8") as f:
        rows = {line.split("|")[1].strip() for line in page_table(f.read()).splitlines()[2:]}
    published = {f"{line}.{p}" for line, patches in versions.PUBLISHED.items() for p in patches}
    assert rows == published and "2.12.3" in rows and len(published) == 76


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def test_the_portable_table_is_the_jars_row_for_row(spark):
    jvm = spark._jvm.subjxform.engine.ServerVersion
    rows = jvm.rows()
    assert rows.length() == len(versions.ROWS)
    for i, py in enumerate(versions.ROWS):
        sc = rows.apply(i)
        for f in dataclasses.fields(versions.ServerVersion):
            mine = getattr(py, f.name)
            theirs = getattr(sc, _camel(f.name))()
            if f.name == "functions":
                assert mine == frozenset(n for n in ALL_FUNCTIONS if theirs.contains(n)), (py.since, f.name)
            elif isinstance(mine, tuple):
                assert ",".join(mine) == theirs.mkString(","), (py.since, f.name)
            else:
                assert mine == theirs, (py.since, f.name, mine, theirs)
        assert ",".join(py.measured) == sc.measured().mkString(","), py.since
    for line, patches in versions.PUBLISHED.items():
        assert ",".join(map(str, patches)) == jvm.Published().apply(line).mkString(","), line
    for line, patches in versions.MEASURED.items():
        assert ",".join(map(str, patches)) == jvm.Measured().apply(line).mkString(","), line
        assert versions.LINE_RELEASES[line] == jvm.LineReleases().apply(line), line
    assert sorted(versions.MEASURED) == sorted(jvm.Measured().keys().mkString(",").split(","))
    assert [v.name for v in versions.ALL] == [jvm.all().apply(i).name() for i in range(jvm.all().length())]
