"""A real cluster: a standalone master and two workers on 127.0.0.1 (from the pyspark installation),
a job submitted with `--jars subjxform.jar`, and a Spark Connect server started with the jar. Both
must give exactly what local mode gives. Every process started here is stopped.

SUBJXFORM_SKIP_CLUSTER=1 skips these (they take about a minute or two on two cores).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request

import pytest

import cluster_job
from standalone import TESTS, Processes, spark_env

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(os.environ.get("SUBJXFORM_SKIP_CLUSTER") == "1", reason="SUBJXFORM_SKIP_CLUSTER=1"),
]


@pytest.fixture(scope="module")
def local_result(spark):
    return json.loads(json.dumps(cluster_job.run(spark)))  # the same JSON round trip as the jobs


def comparable(result: dict) -> dict:
    return {"rows": result["rows"], "error": result["invalid_constant_error"]}


def test_standalone_cluster_with_two_workers_gives_what_local_mode_gives(local_result):
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="subjxform-cluster-")
    env = spark_env(workdir)
    try:
        with Processes(workdir) as procs:
            master, ui = procs.start_cluster(env, workers=2)
            result = procs.submit("submit", master, TESTS / "cluster_job.py", env, "spark.sql.codegen.fallback=false")
            with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as r:
                apps = json.load(r)["completedapps"]
        assert result["master"] == master
        assert apps and apps[0]["cores"] == 2  # both workers ran executors
        assert comparable(result) == comparable(local_result)
        assert "wildcard index out of range" in result["invalid_constant_error"]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"standalone cluster test: {time.monotonic() - started:.0f} s")


def test_spark_connect_server_with_the_jar_gives_what_local_mode_gives(local_result, connect_url):
    # conftest's Connect server: its own JVM, started with nothing but --jars subjxform.jar.
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="subjxform-connect-")
    try:
        with Processes(workdir) as procs:
            result = procs.run_job(
                "client", [sys.executable, str(TESTS / "cluster_job.py")], spark_env(workdir), extra_args=[connect_url]
            )
        assert comparable(result) == comparable(local_result)
        assert "wildcard index out of range" in result["invalid_constant_error"]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"spark connect test: {time.monotonic() - started:.0f} s")
