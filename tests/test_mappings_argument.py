"""A file name where a mappings table goes: subject_map, subject_map_explain and their portable forms read a
file given as a path (the rule the config functions follow, subjxform.configs), and say what happened when
a str looks like a file name but names none, instead of a parse error about its first character."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import subjxform
from conftest import needs_jar
from subjxform import portable

TABLE = 'orders.*: "orders.central.{{wildcard(1)}}"\nbilling.>: "archive.billing.>"\n'
SUBJECTS = ["orders.eu", "billing.x.y", "other"]
MODULES = [pytest.param(subjxform, marks=needs_jar, id="jar"), pytest.param(portable, id="portable")]


@pytest.mark.parametrize("module", MODULES)
def test_a_file_name_that_names_no_file_says_the_argument_is_the_tables_text(module, spark):
    for function in (module.subject_map, module.subject_map_explain):
        with pytest.raises(
            ValueError, match="looks like a file name, but there is no such file: mappings is the table's text"
        ):
            function("subject", "mappings.conf")
    with pytest.raises(ValueError, match="no such file"):
        portable.sql_expression("subject_map", "subject", "conf/orders-mappings.json")


@pytest.mark.parametrize("module", MODULES)
def test_a_path_or_a_str_naming_a_file_is_read(module, spark, tmp_path, monkeypatch):
    (tmp_path / "mappings.conf").write_text(TABLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    df = spark.createDataFrame([(s,) for s in SUBJECTS], "subject string")
    by_text = [r[0] for r in df.select(module.subject_map("subject", TABLE)).collect()]
    assert by_text == ["orders.central.eu", "archive.billing.x.y", "other"]
    for given in (
        "mappings.conf",
        Path("mappings.conf"),
        tmp_path / "mappings.conf",
        os.fspath(tmp_path / "mappings.conf"),
    ):
        assert [r[0] for r in df.select(module.subject_map("subject", given)).collect()] == by_text, given
    assert portable.sql_expression("subject_map", "subject", "mappings.conf") == portable.sql_expression(
        "subject_map", "subject", TABLE
    )
