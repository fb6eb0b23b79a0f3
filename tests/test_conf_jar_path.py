"""Where the jar reads a mappings table, the Python reader must not stand in its way: subject_map with a
cluster name reads the table in Python first for a note (an unknown cluster), and a table that failed the
Python reader failed the jar's call too. And a dict table is written in nats-server's config syntax for
the readers, so that its values keep their types."""

from __future__ import annotations

import pytest

import subjxform
from conftest import needs_jar
from subjxform.grammar import conf_reader, conf_syntax, conf_value

TABLE = '"orders.*": [{destination: "orders.west.$1", weight: 100, cluster: west}, {destination: "orders.$1", weight: 100}]\n'


@needs_jar
def test_subject_map_with_a_cluster_does_not_depend_on_the_python_reader(spark, monkeypatch):
    def broken(self):
        raise RuntimeError("the Python reader broke")

    # Before: check_cluster_name let the Python reader's failure through, and subject_map failed with it.
    monkeypatch.setattr(conf_reader.ConfReader, "document", broken)
    df = spark.createDataFrame([("orders.a",)], "subject string")
    column = subjxform.subject_map("subject", TABLE, cluster="west")
    assert [r[0] for r in df.select(column).collect()] == ["orders.west.a"]


@needs_jar
def test_the_cluster_note_still_warns_when_the_reader_reads_the_table(spark):
    with pytest.warns(UserWarning, match="cluster='east' is no cluster of this table"):
        subjxform.subject_map("subject", TABLE, cluster="east")


@needs_jar
def test_a_dict_keeps_its_types_through_the_jar(spark):
    table = {"a.*": [{"destination": "b.$1", "weight": 40}, {"destination": "c.$1", "weight": "60%"}], "x": "y.é"}
    text = conf_value.conf_text(table)
    assert conf_syntax.parse_mappings(text).get("a.*").items[0].get("weight") == conf_value.Integer(40, 1)
    df = spark.createDataFrame([("x",)], "subject string")
    assert [r[0] for r in df.select(subjxform.subject_map("subject", table, seed=1)).collect()] == ["y.é"]
