"""`subjxform sql` agrees with the jar: every mappings file the other entry points take (subject_map, validate,
report) gives SQL whose results equal the jar's subject_map on the same rows, keyed and seeded."""

from __future__ import annotations

import json
import re

import pytest

from conftest import needs_jar
from subjxform import subject_map
from subjxform.cli.sql import main as sql_main

ORDERS = {
    "orders.*.*": [
        {"destination": "orders.v1.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", "weight": "90%"},
        {"destination": "orders.v2.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", "weight": "8%"},
    ],
    "legacy.>": "archive.>",
}
ORDERS_CONF = """
  "orders.*.*": [
    { destination: "orders.v1.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", weight: 90% }
    { destination: "orders.v2.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", weight: 8% }  # canary
  ]
  legacy.>: "archive.>"
"""

# What a user has on disk: each is taken by subject_map, portable.subject_map, validate and report.
MAPPING_FILES = {
    "block pasted whole": "mappings {" + ORDERS_CONF + "}\n",
    "block content": ORDERS_CONF,
    "block in braces": "{" + ORDERS_CONF + "}\n",
    "mappings = block": "mappings = {" + ORDERS_CONF + "}\n",
    "JSON": json.dumps(ORDERS),
    "JSON with its key": json.dumps({"mappings": ORDERS}),
}


def sql_of(capsys, *args: str) -> str:
    code = sql_main(list(args))
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


@needs_jar
@pytest.mark.parametrize("name", sorted(MAPPING_FILES))
def test_sql_of_every_mappings_file_gives_the_jars_subject_map_row_for_row(spark, capsys, tmp_path, name):
    text = MAPPING_FILES[name]
    path = tmp_path / "mappings.conf"
    path.write_text(text, encoding="utf-8")
    regions = ["eu", "us", "ap"]
    rows = [(i, f"orders.{regions[i % 3]}.c{i % 97}" if i % 5 else f"legacy.x.{i}") for i in range(3000)]
    traffic = spark.createDataFrame(rows + [(3000, "other.subject")], "id int, subject string")
    traffic.createOrReplaceTempView("sql_cli_traffic")
    view = sql_of(
        capsys, str(path), "--key", "id", "--seed", "7", "--view", "sql_cli_mapped", "--from", "sql_cli_traffic"
    )
    spark.sql(view)
    by_sql = dict(spark.sql("SELECT id, mapped_subject FROM sql_cli_mapped").collect())
    by_jar = dict(traffic.select("id", subject_map("subject", text, seed=7, key="id").alias("m")).collect())
    assert by_sql == by_jar
    kinds = {v.split(".")[1] if v.count(".") == 4 else v.split(".")[0] for v in by_jar.values()}
    assert kinds == {"v1", "v2", "orders", "archive", "other"}  # both weights, the 2% kept unchanged, the rest


def run_sql(capsys, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr); lambda variables renamed alike (their numbers count up within a process)."""
    code = sql_main(list(args))
    out = capsys.readouterr()
    return code, re.sub(r"__sx\d+", "__sx", out.out), out.err


def test_a_table_that_draws_needs_key_or_seed_and_then_the_same_command_writes_the_same_sql(capsys, tmp_path):
    weighted = tmp_path / "weighted.conf"
    weighted.write_text(MAPPING_FILES["block pasted whole"], encoding="utf-8")
    code, out, err = run_sql(capsys, str(weighted))
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "--key" in err and "--seed" in err and "draws" in err
    assert run_sql(capsys, str(weighted), "--function", "f")[0] == 2  # a SQL function takes no key: --seed
    for options in (["--seed", "5"], ["--key", "msg_id"], ["--seed", "5", "--function", "route"]):
        first, second = run_sql(capsys, str(weighted), *options), run_sql(capsys, str(weighted), *options)
        assert first[0] == 0 and first == second, options
    fixed = tmp_path / "fixed.conf"
    fixed.write_text('orders.*: "orders.{{partition(4,1)}}.$1"\n', encoding="utf-8")  # draws nothing: no seed needed
    assert run_sql(capsys, str(fixed))[0] == 0 and run_sql(capsys, str(fixed)) == run_sql(capsys, str(fixed))


def test_sql_expression_of_constants_that_draw_needs_key_or_seed():
    from subjxform import portable

    drawing = [
        ("subject_map", (ORDERS,)),
        ("subject_map_explain", (ORDERS,)),
        ("subject_transform", ("svc.*", "svc.{{random(4)}}.$1")),
        ("subject_filter_transform", ([("svc.*", "x.{{random(3)}}")],)),
    ]
    for name, args in drawing:
        with pytest.raises(portable.DrawsNeedAKeyOrSeed, match="key= .* or seed="):
            portable.sql_expression(name, "subject", *args)
        assert portable.sql_expression(name, "subject", *args, seed=3) == portable.sql_expression(
            name, "subject", *args, seed=3
        )
        assert "rand(" not in portable.sql_expression(name, "subject", *args, key="msg_id")
    assert portable.sql_expression("subject_transform", "subject", "svc.*", "x.$1")  # no draw: nothing to give


@needs_jar
def test_sql_reads_an_operator_mode_configs_jwts_as_the_release_loads_them(spark, capsys, tmp_path):
    # Before: the resolver_preload's JWTs were not read (no account, no table). An account is named by its JWT's
    # name or its public key; 2.11 leaves left() out of the account and applies the rest, as its server does.
    pytest.importorskip("nkeys")
    from nats_jwt import Key, account_jwt, server_config

    op, system, orders = Key("operator"), Key("account"), Key("account")
    table = {"wh.*.*": [{"subject": "wh.{{left(1,2)}}.$2"}], "o.*": [{"subject": "o.v1.$1"}]}
    config = tmp_path / "resolver.conf"
    config.write_text(
        server_config(
            op,
            system,
            {
                system.public: account_jwt(op, system, "SYS"),
                orders.public: account_jwt(op, orders, "ORDERS", mappings=table),
            },
        )
    )
    traffic = spark.createDataFrame([(0, "wh.apacwx.delivered"), (1, "o.x"), (2, "q")], "id int, subject string")
    traffic.createOrReplaceTempView("sql_cli_jwt_traffic")
    for account in (None, "ORDERS", orders.public):
        for version in ("2.11", "2.15"):
            args = [str(config), "--server-version", version, "--view", "sql_cli_jwt", "--from", "sql_cli_jwt_traffic"]
            spark.sql(sql_of(capsys, *args, *(["--account", account] if account else [])))
            by_sql = dict(spark.sql("SELECT id, mapped_subject FROM sql_cli_jwt").collect())
            assert by_sql == {0: "wh.apacwx.delivered" if version == "2.11" else "wh.ap.delivered", 1: "o.v1.x", 2: "q"}
    code, _, err = run_sql(capsys, str(config), "--account", "NOPE")
    assert code == 1 and "the config has no account 'NOPE' (accounts with mappings: ORDERS (" in err
