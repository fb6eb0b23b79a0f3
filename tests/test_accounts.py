"""The accounts API without a server (it runs in classic and Spark Connect mode: scripts/test.sh runs this
file both ways): a config's text, a path with an include and an environment variable, JWT claims, and a
config nats-server refuses. (Environment variables: AccountsSuite and test_validate_server_configs.)"""

from __future__ import annotations

import json

import pytest

from conftest import SPARK_MODE
from subjxform import subject_map, validate_mappings
from subjxform.accounts import AccountsConfigError, accounts_plan, replay

# Part of the compatibility suite that runs on every Spark line: accounts_plan and the replay from Python.
pytestmark = pytest.mark.compat

CONFIG = """
accounts {
  A: { exports: [{stream: "foo.*"}, {service: "svc.*.*"}], mappings: { "m.*": "foo.$1" } }
  B: { imports: [{stream: {account: A, subject: "foo.*"}, to: "bar.$1"},
                 {service: {account: A, subject: "svc.*.*"}, to: "local.$2.$1"}],
       mappings: { "bar.*": "own.$1" } }
}
"""


def deliveries(session, config, rows):
    df = session.createDataFrame(rows, "subject string, account string")
    return sorted((r.subject, r.received_by, r.received_subject, r.via) for r in replay(df, config).collect())


def test_replay_a_config_text(session):
    assert deliveries(session, CONFIG, [("m.1", "A"), ("local.y.x", "B"), ("bar.2", "B")]) == [
        ("bar.2", "B", "own.2", "publish"),
        ("local.y.x", "A", "svc.x.y", "service import"),
        ("local.y.x", "B", "local.y.x", "publish"),
        ("m.1", "A", "foo.1", "publish"),
        ("m.1", "B", "bar.1", "stream import"),
    ]


def test_an_include_resolves_relative_to_the_file(session, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.conf").write_text('B: { imports: [{stream: {account: A, subject: "foo.*"}, prefix: p}] }\n')
    (tmp_path / "main.conf").write_text('accounts {\n  A: { exports: [{stream: "foo.*"}] }\n  include sub/b.conf\n}\n')
    plan = accounts_plan(session, tmp_path / "main.conf")
    assert [(r["importer"], r["dest"]) for r in plan["routes"]] == [("B", "p.foo.$1")]
    with pytest.raises(AccountsConfigError, match="a config read as text includes no files"):
        accounts_plan(session, (tmp_path / "main.conf").read_text())  # the text alone has no folder


def test_a_config_nats_server_refuses_names_the_entry_and_its_reason(session):
    bad = CONFIG.replace('to: "bar.$1"', 'to: "bar.$2"')
    with pytest.raises(AccountsConfigError) as e:
        accounts_plan(session, bad)
    assert str(e.value) == (
        'config:4: accounts.B.imports[0]: Error adding stream import "foo.*": failed to create '
        'mapping transform for stream import subject from "foo.*" to "bar.$2": invalid mapping '
        "destination: wildcard index out of range in $2: [2]"
    )
    with pytest.raises(AccountsConfigError, match='"Z" account not defined for stream import'):
        accounts_plan(session, CONFIG.replace('account: A, subject: "foo.*"', 'account: Z, subject: "foo.*"'))


def test_jwt_claims_and_the_jwt_mapping_shape(session):
    claims = [
        {
            "sub": "AKEYA",
            "name": "A",
            "nats": {
                "type": "account",
                "exports": [{"type": "stream", "subject": "e.>"}],
                "mappings": {"w": [{"subject": "w.one"}], "z": [{"subject": "z.one", "weight": 0}]},
            },
        },
        {
            "sub": "AKEYB",
            "name": "B",
            "nats": {
                "type": "account",
                "imports": [{"type": "stream", "account": "AKEYA", "subject": "e.>", "to": "fromA"}],
            },
        },
    ]
    assert deliveries(session, claims, [("w", "A"), ("z", "A"), ("e.1", "A")]) == [
        ("e.1", "A", "e.1", "publish"),
        ("e.1", "B", "fromA.e.1", "stream import"),
        ("w", "A", "w.one", "publish"),
        ("z", "A", "z.one", "publish"),
    ]
    df = session.createDataFrame([("z",)], "subject string")
    assert df.select(subject_map("subject", {"z": [{"subject": "z.one", "weight": 0}]})).first()[0] == "z.one"


def test_a_config_with_top_level_mappings_only_and_the_server_it_describes(session):
    # Failed before issue 15's fix: with no accounts block the plan's JSON began "[,{...$G...}]".
    plan = accounts_plan(
        session, 'server_name: edge\ncluster { name: c1 }\njetstream: enabled\nmappings { "a.*": "b.$1" }'
    )
    assert [a["name"] for a in plan["accounts"]] == ["$G"]
    assert plan["server"] == {
        "server_name": "edge",
        "cluster": "c1",
        "gateway": None,
        "leafnode_remotes": 0,
        "leafnode_listen": False,
        "jetstream": True,
    }


def test_a_path_is_a_file_whether_a_path_or_a_str_naming_one_everywhere(session, tmp_path, monkeypatch):
    """One rule for every function that takes a config (subjxform.configs): a Path, or a str naming an
    existing file, is read from the file; any other str is the config's text."""
    from pathlib import Path

    from subjxform.scopes import server_from_config, stream
    from subjxform.streams import StreamConfigError, stream_plan

    (tmp_path / "server.conf").write_text("server_name: edge\n" + CONFIG)
    monkeypatch.chdir(tmp_path)
    text = accounts_plan(session, "server_name: edge\n" + CONFIG)
    assert accounts_plan(session, "server.conf") == accounts_plan(session, Path("server.conf")) == text
    rows = [("m.1", "A")]
    assert (
        deliveries(session, "server.conf", rows)
        == deliveries(session, CONFIG, rows)
        == [("m.1", "A", "foo.1", "publish"), ("m.1", "B", "bar.1", "stream import")]
    )
    from_file = server_from_config(session, "server.conf", account="B")
    assert server_from_config(session, Path("server.conf"), account="B") == from_file
    assert server_from_config(session, (tmp_path / "server.conf").read_text(), account="B") == from_file
    assert from_file.name == "edge" and json.loads(from_file.mappings) == {"bar.*": "own.$1"}
    (tmp_path / "stream.json").write_text('{"name": "S", "subjects": ["s.>"]}')
    assert stream_plan(session, "stream.json") == stream_plan(session, '{"name": "S", "subjects": ["s.>"]}')
    assert stream(from_file, "stream.json").label == stream(from_file, Path("stream.json")).label == "stream S@edge"
    # A mistyped path is read as config text; its error says no such file exists.
    with pytest.raises(AccountsConfigError, match=r"there is no file 'sever.conf': a str is read as a file only when"):
        accounts_plan(session, "sever.conf")
    with pytest.raises(StreamConfigError, match=r"there is no file 'stream.jsn.json'"):
        stream_plan(session, "stream.jsn.json")


def test_replay_uses_the_configs_own_cluster_name_for_scoped_destinations(session):
    config = (
        'cluster { name: east }\nmappings { "orders.*": [{destination: "east.$1", weight: 100%, cluster: east},'
        ' {destination: "central.$1", weight: 100%}] }'
    )
    df = session.createDataFrame([("orders.1", "$G")], "subject string, account string")
    assert [r.received_subject for r in replay(df, config).collect()] == ["east.1"]
    assert [r.received_subject for r in replay(df, config, cluster="west").collect()] == ["central.1"]


@pytest.mark.skipif(SPARK_MODE != "connect", reason="what a Spark Connect client gets")
def test_validate_mappings_under_spark_connect_says_it_needs_a_classic_session(session):
    with pytest.raises(RuntimeError, match=r"^validate_mappings needs a classic SparkSession"):
        validate_mappings('a.*: "b.$1"', spark=session)
