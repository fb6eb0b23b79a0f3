"""subjxform: NATS subject mapping and transforms as native Spark SQL functions.

The functions are Catalyst expressions in ``subjxform.jar`` (shipped inside this package); this
module only names them. Put the jar on the classpath and Spark finds the functions by itself::

    from pyspark.sql import SparkSession, functions as F
    import subjxform

    spark = SparkSession.builder.config("spark.jars", subjxform.jar_path()).getOrCreate()
    df = spark.createDataFrame([("orders.eu.42",)], ["subject"])
    df.select(subjxform.subject_transform("subject", "orders.*.*", "shipments.$2.$1")).show()
    df.select(F.expr("subject_transform(subject, 'orders.*.*', 'b.<<wildcard(1)>>')")).show()
"""

from importlib.metadata import PackageNotFoundError, version

from subjxform.functions import (
    subject_filter_transform,
    subject_map,
    subject_matches,
    subject_transform,
    try_subject_filter_transform,
    try_subject_transform,
)
from subjxform.mappings import MappingProblem, validate_mappings
from subjxform.session import configure, jar_path, register

try:
    __version__ = version("subjxform")  # from version.txt, the one place sbt reads it too
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "unknown"

__all__ = [
    "subject_transform",
    "try_subject_transform",
    "subject_matches",
    "subject_map",
    "validate_mappings",
    "MappingProblem",
    "subject_filter_transform",
    "try_subject_filter_transform",
    "register",
    "jar_path",
    "configure",
    "__version__",
]
