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

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("subjxform")  # from version.txt, the one place sbt reads it too
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "unknown"

# Where each public name lives. They are imported on first use (PEP 562), so that the command line,
# which needs only the jar's path, starts without importing PySpark.
_EXPORTS = {
    "subject_transform": "subjxform.functions",
    "try_subject_transform": "subjxform.functions",
    "subject_matches": "subjxform.functions",
    "subject_map": "subjxform.functions",
    "subject_map_explain": "subjxform.functions",
    "subject_filter_transform": "subjxform.functions",
    "try_subject_filter_transform": "subjxform.functions",
    "validate_mappings": "subjxform.mappings",
    "MappingProblem": "subjxform.mappings",
    "replay": "subjxform.accounts",
    "accounts_plan": "subjxform.accounts",
    "AccountsConfigError": "subjxform.accounts",
    "verify_account_jwt": "subjxform.accounts",
    "consumer_group_partition": "subjxform.groups",
    "consumer_group_member": "subjxform.groups",
    "consumer_group_plan": "subjxform.groups",
    "GroupConfigError": "subjxform.groups",
    "register": "subjxform.session",
    "jar_path": "subjxform.session",
    "configure": "subjxform.session",
    "spark_line": "subjxform.session",
    "UnsupportedSparkError": "subjxform.session",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
        globals()[name] = value  # found once; later lookups do not come here
        return value
    raise AttributeError(f"module 'subjxform' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
