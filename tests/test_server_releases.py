"""Releases within a line differ (fixes are backported): each release on either side of a difference in
ServerVersion.scala's table, through its real binary (JetStream on, installed by scripts/nats-servers.sh into
.tools/nats-server/<release>/), against `stream_plan` / `stream_messages` with `server_version=<release>`:

- the implicit republish `>` -> `>` (nats-server PR #7515): accepted from 2.11.11 and 2.12.2 on, a cycle before;
- an empty destination token's error ends in "invalid transform in " on 2.12.0-2.12.4, "invalid transform" on;
- a republish whose transformed subject has white space: sent (broken) by 2.14.0 and older, suppressed from
  2.14.1 on (PR #8127); one with an empty token reaches no subscriber on any release. The project republishes
  nothing for either on every release (and `validate` says which releases send the first).
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from nats_client import NatsClient, jetstream_server
from server_lines_golden import ROOT
from subjxform.functions import subject_transform
from subjxform.streams import StreamConfigError, stream_messages, stream_plan

# The releases on either side of each difference, and each line's measured one.
RELEASES = [
    "2.10.25",
    "2.10.26",
    "2.11.0",
    "2.11.10",
    "2.11.11",
    "2.12.0",
    "2.12.1",
    "2.12.2",
    "2.12.4",
    "2.12.5",
    "2.12.8",
    "2.14.0",
    "2.14.1",
    "2.14.6",
    "2.15.0",
    "2.15.1",
]
LINE_FOLDERS = {"2.10.26": "2.10", "2.11.11": "2.11", "2.12.8": "2.12", "2.14.6": "2.14", "2.15.1": "2.15"}

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
CONFIGS = [IMPLICIT, EMPTY_TOKEN, EMPTY_REPUBLISH, SPACED_REPUBLISH]


def binary(release: str) -> str:
    path = os.path.join(ROOT, ".tools", "nats-server", LINE_FOLDERS.get(release, release), "bin", "nats-server")
    if not os.access(path, os.X_OK):
        pytest.skip(f"no nats-server {release}: run scripts/nats-servers.sh")
    return path


def on_the_server(release: str):
    """Each config's verdict ((description, code), or None when created) and the subjects a `>` subscriber
    received after publishing `r.--`, `r.x` and `w.x` (a control line broken by white space reads as its
    first word: `HMSG rpw.a b.x …` as `rpw.a`)."""
    with jetstream_server(binary(release)) as port:
        client = NatsClient(port)
        try:
            out = subprocess.check_output([binary(release), "--version"], text=True).strip()
            assert out == f"nats-server: v{release}", out
            verdicts = []
            for cfg in CONFIGS:
                r = client.request(f"$JS.API.STREAM.CREATE.{cfg['name']}", cfg)
                verdicts.append((r["error"]["description"], r["error"]["err_code"]) if "error" in r else None)
            client.subscribe(">")  # an empty-token subject reaches `>` subscribers
            for subject in ("r.--", "r.x", "w.x"):
                assert "error" not in client.request(subject, b"m")
            deadline = time.monotonic() + 5
            while not client.received("rp.x") and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.2)
            return verdicts, sorted(client.received("rp"))
        finally:
            client.close()


def ours(spark, cfg: dict, release: str):
    try:
        stream_plan(spark, cfg, server_version=release)
        return None
    except StreamConfigError as e:
        return str(e)


@pytest.mark.parametrize("release", RELEASES)
def test_each_release_creates_refuses_and_republishes_as_its_binary_does(spark, release):
    theirs, republished = on_the_server(release)
    for cfg, verdict in zip(CONFIGS, theirs):
        mine = ours(spark, cfg, release)
        if verdict is None:
            assert mine is None, (release, cfg["name"], mine)
        else:
            description, code = verdict
            assert mine is not None and mine.endswith(f": {description} (nats-server error {code})"), (
                release,
                mine,
                verdict,
            )
    version = spark._jvm.subjxform.engine.ServerVersion.parse(release)
    # The binary sends the republish with white space exactly where the table says it does not suppress it;
    # the one with an empty token reaches no subscriber on any release.
    assert ("rpw.a" in republished) == (not version.suppressesInvalidRepublish()), (release, republished)
    assert "rp.x" in republished and "rp." not in republished
    # What the project gives on every release: no republished subject for either (a valid subject for the rest).
    df = spark.createDataFrame([("r.--",), ("r.x",), ("w.x",)], "subject string")
    rows = {
        r.subject: r.republished_subject
        for cfg in (EMPTY_REPUBLISH, SPACED_REPUBLISH)
        for r in stream_messages(df, cfg, server_version=release).where("stored_subject IS NOT NULL").collect()
    }
    assert rows == {"r.--": None, "r.x": "rp.x", "w.x": None}


def test_the_differences_fall_where_the_releases_say():
    """Which releases the cases above separate: a guard that the table's rows are pinned by a release on
    each side (so removing a row, or moving its start, fails through the binaries)."""
    from subjxform.portable import _versions

    implicit = [r for r in RELEASES if _versions.parse(r).implicit_republish]
    assert implicit == [
        "2.11.11",
        "2.12.2",
        "2.12.4",
        "2.12.5",
        "2.12.8",
        "2.14.0",
        "2.14.1",
        "2.14.6",
        "2.15.0",
        "2.15.1",
    ]
    says_in = [r for r in RELEASES if _versions.parse(r).empty_token_error_says_in]
    assert says_in == ["2.10.25", "2.10.26", "2.11.0", "2.11.10", "2.11.11", "2.12.0", "2.12.1", "2.12.2", "2.12.4"]
    suppressed = [r for r in RELEASES if _versions.parse(r).suppresses_invalid_republish]
    assert suppressed == ["2.14.1", "2.14.6", "2.15.0", "2.15.1"]


LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
IMPORT_TO = (
    'accounts {\n  A: { users: [{user: a, password: a}], exports: [{stream: "foo.*"}] }\n'
    '  B: { users: [{user: b, password: b}], imports: [{stream: {account: A, subject: "foo.*"}, '
    'to: "bar.{{left(1,2)}}"}] }\n}\n'
)


@pytest.mark.parametrize("line", LINES)
def test_an_import_to_with_left_is_refused_in_each_lines_words(session, tmp_path, line):
    """`nats-server -t` of each line: an import's `to` is built without the mapping checks, so 2.10-2.14 (which
    parse left() but do not list it) refuse it as an import transform, not as an unknown function."""
    from subjxform.accounts import AccountsConfigError, accounts_plan

    path = tmp_path / "server.conf"
    path.write_text("port: -1\n" + IMPORT_TO)
    theirs = subprocess.run([_line_binary(line), "-t", "-c", str(path)], capture_output=True, text=True, timeout=30)
    assert theirs.returncode != 0
    reason = theirs.stderr.strip().split(": ", 2)[-1]
    assert "the only mapping function allowed for import transforms is {{Wildcard()}} in {{left(1,2)}}" in reason
    with pytest.raises(AccountsConfigError) as ours:
        accounts_plan(session, path, server_version=line)
    assert str(ours.value).endswith(reason), (str(ours.value), reason)


def _line_binary(line: str) -> str:
    path = os.path.join(ROOT, ".tools", "nats-server", line, "bin", "nats-server")
    if not os.access(path, os.X_OK):
        pytest.skip(f"no nats-server {line}: run scripts/nats-servers.sh")
    return path


def test_the_portable_import_check_says_what_each_line_says():
    from subjxform.portable import _transform, _versions

    for line in LINES:
        with pytest.raises(_transform.InvalidTransform) as e:
            _transform.compile_transform("a.*", "b.{{left(1,2)}}", True, _versions.parse(line))
        assert e.value.reason == (
            "invalid mapping destination: the only mapping function allowed for import transforms "
            "is {{Wildcard()}} in {{left(1,2)}}"
        ), line


@pytest.mark.parametrize(
    "written, says",
    [
        ("2.11.99", "nats-server published no release 2.11.99 (the nearest: 2.11.17;"),
        ("2.10.13", "(the nearest: 2.10.12 or 2.10.14;"),
        (
            "v2.11",
            "(a 'v' names a release, as nats-server --version prints it: write the line as '2.11' or a release like 'v2.11.11')",
        ),
        ("2.13.1", "supported lines are 2.10, 2.11, 2.12, 2.14, 2.15"),
    ],
)
def test_a_release_never_published_is_refused_naming_the_nearest(spark, written, says):
    from subjxform.portable import _versions

    with pytest.raises(StreamConfigError) as e:
        stream_plan(spark, {"name": "S", "subjects": ["a"]}, server_version=written)
    assert says in str(e.value), str(e.value)
    df = spark.createDataFrame([("a.b",)], "subject string")
    with pytest.raises(Exception) as e:  # Spark's analysis error on the argument
        df.select(subject_transform("subject", "a.*", "b.$1", server_version=written)).collect()
    assert says in str(e.value) and "server_version" in str(e.value), str(e.value)
    with pytest.raises(_versions.UnsupportedServerVersion) as p:
        _versions.parse(written)
    assert says in str(p.value)


def test_what_nats_server_version_prints_is_taken_as_is(spark):
    out = stream_plan(spark, IMPLICIT, server_version="nats-server: v2.11.11")
    assert out["republish"] == {"src": "b.>", "dest": "b.>"} and out["applied_as"]["republish"] == "2.11.11"
    with pytest.raises(StreamConfigError, match="forms a cycle"):
        stream_plan(spark, IMPLICIT, server_version="v2.11.10")
