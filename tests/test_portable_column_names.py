"""Portable columns are named as the jar's are, by the function and its subject (`subject_map(subject, …)`),
not by the whole generated expression (15,430 characters for one subject_map)."""

from __future__ import annotations

from pyspark.sql import functions as F

from subjxform import portable

TABLE = {
    "orders.*.*": [
        {"destination": "orders.v1.{{partition(8,2)}}.$1.$2", "weight": "90%"},
        {"destination": "orders.v2.{{partition(8,2)}}.$1.$2", "weight": "10%"},
    ]
}
FORMS = [
    ("subject_transform", ("orders.*.*", "x.{{partition(4,1)}}.$2"), {}),
    ("try_subject_transform", ("orders.*", "x.$2"), {}),
    ("subject_matches", ("orders.>",), {}),
    ("subject_filter_transform", ([("orders.*.*", "y.$1")],), {}),
    ("try_subject_filter_transform", ([("orders.>", "")],), {}),
    ("subject_map", (TABLE,), {"seed": 3, "key": "id"}),
    ("subject_map_explain", (TABLE,), {"cluster": "east"}),
]


def test_every_portable_column_is_named_by_its_function_and_subject(session):
    df = session.createDataFrame([(1, "orders.eu.c1")], "id int, subject string")
    for name, args, kw in FORMS:
        function = getattr(portable, name)
        assert df.select(function("subject", *args, **kw)).columns == [f"{name}(subject, …)"], name
        assert df.select(function(F.col("subject"), *args, **kw)).columns == [f"{name}(subject, …)"], name
    renamed = df.select(portable.subject_map("subject", TABLE, seed=1).alias("routed"))
    assert renamed.columns == ["routed"] and renamed.first()["routed"].startswith("orders.v")
