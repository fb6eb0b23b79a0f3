"""A local Spark session with the line's jar on its classpath and nothing else configured, so every
test also proves the user's line works with ``--jars`` alone — on Spark 4. PySpark 3.5 creates its JVM
session without Spark's service loader (only ``spark.sql.extensions`` is applied), so there the
extension is named too, as README tells Spark 3.5 users to."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyspark
import pytest
from pyspark.sql import SparkSession

import subjxform
from processes import TEST_JVM_OPTIONS, free_port, listening, stop, wait_until
from subjxform.session import EXTENSIONS_CLASS

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"

# Every Spark JVM started through spark-submit (sessions, Spark Connect servers, the commands the tests run)
# gets the tests' JIT options; a value of one's own in the environment wins.
os.environ.setdefault("SPARK_SUBMIT_OPTS", TEST_JVM_OPTIONS)

# PySpark 3.5 builds its JVM session with SparkSession(sc, options), which applies spark.sql.extensions
# but not the extensions Spark finds through service entries (Spark 4 applies both).
NEEDS_EXTENSION_CONF = pyspark.__version__.startswith("3.")


# `SUBJXFORM_SPARK_MODE` picks the session the tests that take `session` (and `spark`) get, one mode per
# pytest run (PySpark's functions pick classic or Connect columns per process):
#   classic (default)  a local session with the jar (--jars alone, as a user starts one)
#   connect            a Spark Connect client of a server started with the jar
#   nojar              a local session WITHOUT the jar: what Databricks serverless/shared compute gives
#   nojar-connect      a Spark Connect client of a server started without the jar
# The no-jar modes run the portable suite (subjxform.portable), which must need no jar at all.
SPARK_MODE = os.environ.get("SUBJXFORM_SPARK_MODE", "classic")
HAS_JAR = not SPARK_MODE.startswith("nojar")
CONNECT = SPARK_MODE.endswith("connect")

# Tests that compare with the jar's answers run only where the jar is.
needs_jar = pytest.mark.skipif(not HAS_JAR, reason="compares with the jar: this session has none")


# The inner loop's sample (`bash scripts/test.sh --quick`, `pytest -m quick`): a little of every layer, about a
# minute on the newest line. module -> the tests of it in the sample (None: all of them), by name (every
# parameter) or with the parameter's id.
QUICK = {
    "test_layers.py": None,  # what may import what
    "test_signatures.py": None,  # the jar API and the portable API: one signature, one check of each argument
    "test_portable_grammar.py": None,  # the engine's Python port against every golden case (no Spark)
    "test_config_errors.py": None,
    "test_functions.py": None,  # every SQL function from Python, classic
    "test_streams.py": None,  # stream plans and messages
    "test_golden.py": ["test_every_case_through_one_dataframe_with_transforms_from_columns"],
    "test_subject_map.py": ["test_every_accepted_golden_case_with_the_table_from_a_column"],
    "test_portable_transforms.py": [
        "test_sql_text_gives_what_the_column_gives",
        "test_no_tree_names_a_subjxform_function",
    ],
    "test_accounts.py": ["test_replay_a_config_text"],
    "test_groups.py": ["test_every_golden_subject_gets_the_librarys_partition_and_member"],
    "test_reports.py": ["test_explain_struct_from_python"],
    "test_cli.py": [
        "test_several_subjects_and_a_non_matching_one",
        "test_validate_lists_every_problem_one_per_line_with_exit_code_1",
    ],
    "test_docs.py": ["test_the_docs_site_builds_strict"],
    # what the newest line's JetStream stored and republished, through stream_plan and stream_messages
    "test_server_lines_streams_golden.py": ["test_each_lines_streams_store_and_republish_what_its_server_did[2.15]"],
}


# The modules that take longest (`--durations` of the full run, with their fixtures), longest first. The full
# run's pytest-xdist workers (scripts/test.sh: `--dist loadfile --no-loadscope-reorder`) take modules in the
# order collected: these first, so that the longest is never what one worker still runs while the other idles
# (the portable golden test, several minutes, once started when the run was nine-tenths done).
LONGEST_FIRST = [
    "test_portable_transforms.py",
    "test_portable_mappings.py",
    "test_server_lines_nats.py",
    "test_golden.py",
    "test_server_lines_streams_golden.py",
    "test_cluster.py",
    "test_nats_source_faults.py",
    "test_bench_guard.py",
    "test_task_reruns.py",
    "test_connect_server.py",
    "test_stream_explain.py",
    "test_operator_mode_nats_server.py",  # ten servers, and each release's queries (4.5 minutes on a loaded machine)
]


# A test that needs a tool the set-up installs (a nats-server binary) skips where it is missing on a developer's
# machine; in CI's full run of the newest line (.ci/run sets CI; the other lines' venvs and modes run a subset
# that may lack them) the set-up has run, so such a skip means a test silently checked nothing: a failure.
SET_UP_INSTALLS = ("nats-server",)
MUST_NOT_SKIP_TOOLS = (
    bool(os.environ.get("CI")) and SPARK_MODE == "classic" and not os.environ.get("SUBJXFORM_EXPECT_LINE")
)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and MUST_NOT_SKIP_TOOLS and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if any(tool in reason for tool in SET_UP_INSTALLS):
            report.outcome = "failed"
            report.longrepr = f"skipped in CI, where the set-up installs what it needs: {reason}"


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.path.name
        chosen = QUICK.get(module, ())
        if chosen is None or item.originalname in chosen or item.name in chosen:
            item.add_marker(pytest.mark.quick)
    if "PYTEST_XDIST_WORKER" in os.environ:  # (one process: the order collected)
        rank = {module: k for k, module in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session")
def spark() -> SparkSession:
    builder = SparkSession.builder
    if HAS_JAR:
        if NEEDS_EXTENSION_CONF:
            builder = builder.config("spark.sql.extensions", EXTENSIONS_CLASS)
        builder = builder.config("spark.jars", subjxform.jar_path())
    session = (
        builder.master("local[2]")
        .appName("subjxform-pytest")
        .config("spark.sql.codegen.fallback", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", str(ROOT / "target" / "pytest-warehouse"))
        .getOrCreate()
    )
    if not HAS_JAR:  # the proof is only worth something if the jar really is absent
        assert not session.catalog.functionExists("subject_transform"), "a no-jar session has subjxform's functions"
    yield session
    session.stop()


def golden(name: str) -> list[dict]:
    with open(GOLDEN / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="session")
def connect_url():
    """A Spark Connect server in its own process, started with nothing but ``--jars subjxform.jar`` (in the
    no-jar modes: with no jar of ours at all)."""
    import subprocess

    import pyspark

    spark_home = Path(pyspark.__file__).parent
    port = free_port()
    # one log per server: several test runs may each start one at the same time (scripts/test.sh's lanes)
    target = ROOT / "target"
    log = open(target / f"connect-server-{os.getpid()}.log", "w") if target.is_dir() else subprocess.DEVNULL
    server = subprocess.Popen(
        [
            str(spark_home / "bin" / "spark-submit"),
            "--master",
            "local[2]",
            "--class",
            "org.apache.spark.sql.connect.service.SparkConnectServer",
            # (Spark 3.5's Connect server is a package of its own: SUBJXFORM_CONNECT_JARS names its jar.)
            "--jars",
            ",".join(
                filter(None, [subjxform.jar_path() if HAS_JAR else None, os.environ.get("SUBJXFORM_CONNECT_JARS")])
            ),
            "--conf",
            f"spark.connect.grpc.binding.port={port}",
            "--conf",
            "spark.connect.grpc.binding.address=127.0.0.1",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.sql.codegen.fallback=false",
            "spark-internal",
        ],
        env={**os.environ, "SPARK_HOME": str(spark_home), "SPARK_LOCAL_IP": "127.0.0.1"},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until("the Spark Connect server", lambda: listening(port), 180, [server])
        yield f"sc://127.0.0.1:{port}"
    finally:
        stop(server, grace=30)


@pytest.fixture(scope="session")
def session(request):
    if CONNECT:
        client = SparkSession.builder.remote(request.getfixturevalue("connect_url")).getOrCreate()
        if not HAS_JAR:
            assert not client.catalog.functionExists("subject_transform"), "a no-jar server has subjxform's functions"
        yield client
        client.stop()
    else:
        yield request.getfixturevalue("spark")


classic_only = pytest.mark.skipif(CONNECT, reason="needs the classic in-process JVM")

# An older line's compatibility run (scripts/test-lines.sh names the line in SUBJXFORM_EXPECT_LINE) checks what
# can differ from one Spark line to another: every SQL function, mode, registration and version-dependent
# path. What the engine alone decides — the same compiled code on every line — is checked case by case in
# the newest line's full run.
COMPAT_RUN = "SUBJXFORM_EXPECT_LINE" in os.environ


def one_of_each(cases, kind):
    """Every case in the full run; in an older line's compatibility run, the first case of each `kind(case)`:
    enough to see each kind of result and error reach that line's Spark as it should."""
    if not COMPAT_RUN:
        return list(cases)
    first: dict = {}
    for case in cases:
        first.setdefault(kind(case), case)
    return list(first.values())


def row_error(df) -> tuple[str, str, dict, str]:
    """The error collecting ``df`` raises for an invalid value in a row: its condition, SQL state,
    parameters and message. Spark 4 and Spark Connect raise ``pyspark.errors.IllegalArgumentException``;
    classic PySpark 3.5 hands any error raised in a task over as a raw ``Py4JJavaError`` (Spark 3.5's own
    functions' too), whose Java cause is the same error with the same message (README says so)."""
    from pyspark.errors import IllegalArgumentException

    from subjxform._compat import error_condition, error_parameters

    if SPARK_MODE == "classic" and pyspark.__version__.startswith("3."):
        from py4j.protocol import Py4JJavaError

        with pytest.raises(Py4JJavaError) as raw:
            df.collect()
        cause = raw.value.java_exception
        while cause is not None and cause.getClass().getName() != "subjxform.spark.InvalidArgumentValueException":
            cause = cause.getCause()
        assert cause is not None, str(raw.value)[:2000]
        return cause.getErrorClass(), cause.getSqlState(), dict(cause.getMessageParameters()), cause.getMessage()
    with pytest.raises(IllegalArgumentException) as err:
        df.collect()
    e = err.value
    return error_condition(e), e.getSqlState(), error_parameters(e), str(e)
