"""A real cluster: a standalone master and two workers on 127.0.0.1 (from the pyspark installation),
a job submitted with `--jars subjxform.jar`, and a Spark Connect server started with the jar. Both
must give exactly what local mode gives. Every process started here is stopped.

SUBJXFORM_SKIP_CLUSTER=1 skips these (they take about a minute or two on two cores).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pyspark
import pytest

import cluster_job
import subjxform
from processes import free_port, free_ports, stop, wait_until

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(os.environ.get("SUBJXFORM_SKIP_CLUSTER") == "1", reason="SUBJXFORM_SKIP_CLUSTER=1"),
]

SPARK_HOME = Path(pyspark.__file__).parent
TESTS = Path(__file__).resolve().parent
PYTHON_SRC = TESTS.parent / "python" / "src"


def spark_env(workdir: str) -> dict:
    env = dict(os.environ)
    env.update({
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_WORKER_DIR": os.path.join(workdir, "work"),
        "SPARK_LOG_DIR": os.path.join(workdir, "logs"),
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        "PYTHONPATH": os.pathsep.join([str(PYTHON_SRC), str(TESTS), env.get("PYTHONPATH", "")]),
    })
    return env


class Processes:
    """Started processes, each in its own process group, all stopped on exit."""

    def __init__(self, workdir: str):
        self.workdir = workdir
        self.procs: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, args: list[str], env: dict) -> subprocess.Popen:
        log = open(os.path.join(self.workdir, name + ".log"), "wb")
        proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.procs.append((name, proc))
        return proc

    def log(self, name: str) -> str:
        with open(os.path.join(self.workdir, name + ".log"), encoding="utf-8", errors="replace") as f:
            return f.read()[-3000:]

    def __enter__(self) -> "Processes":
        return self

    def run_job(self, name: str, args: list[str], env: dict, extra_args: list[str] = ()) -> dict:
        """Runs cluster_job.py (`args` ends with its path) to completion; what it wrote."""
        out = os.path.join(self.workdir, name + "-result.json")
        job = self.start(name, [*args, out, *extra_args], env)
        try:
            rc = job.wait(240)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{name} took more than 240 s: " + self.log(name))
        assert rc == 0, self.log(name)
        with open(out, encoding="utf-8") as f:
            return json.load(f)

    def wait_until(self, what: str, ready, timeout: float, names: list[str]) -> None:
        wait_until(what, ready, timeout, [p for n, p in self.procs if n in names],
                   log=lambda: " | ".join(self.log(n) for n in names))

    def __exit__(self, *exc) -> None:
        for _name, proc in reversed(self.procs):
            stop(proc, group=True)


@pytest.fixture(scope="module")
def local_result(spark):
    return json.loads(json.dumps(cluster_job.run(spark)))  # the same JSON round trip as the jobs


def comparable(result: dict) -> dict:
    return {"rows": result["rows"], "error": result["invalid_constant_error"]}


def test_standalone_cluster_with_two_workers_gives_what_local_mode_gives(local_result):
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="subjxform-cluster-")
    env = spark_env(workdir)
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    # Every port chosen up front and distinct: a worker's UI must not take the master's before it binds.
    port, ui, worker_ui1, worker_ui2 = free_ports(4)
    worker_uis = {1: worker_ui1, 2: worker_ui2}
    master = f"spark://127.0.0.1:{port}"
    try:
        with Processes(workdir) as procs:
            procs.start("master", [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(port), "--webui-port", str(ui)], env)
            for i in (1, 2):
                procs.start(f"worker{i}", [spark_class, "org.apache.spark.deploy.worker.Worker", master, "--host",
                                           "127.0.0.1", "--cores", "1", "--memory", "1g",
                                           "--webui-port", str(worker_uis[i]),
                                           "--work-dir", os.path.join(workdir, f"work{i}")], env)

            def two_workers() -> bool:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=2) as r:
                    return json.load(r).get("aliveworkers", 0) == 2

            procs.wait_until("two workers", two_workers, 90, ["master", "worker1", "worker2"])
            result = procs.run_job("submit", [
                str(SPARK_HOME / "bin" / "spark-submit"), "--master", master, "--jars", subjxform.jar_path(),
                "--conf", "spark.executor.memory=512m", "--conf", "spark.executor.cores=1",
                "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.codegen.fallback=false",
                str(TESTS / "cluster_job.py")], env)
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
            result = procs.run_job("client", [sys.executable, str(TESTS / "cluster_job.py")], spark_env(workdir),
                                   extra_args=[connect_url])
        assert comparable(result) == comparable(local_result)
        assert "wildcard index out of range" in result["invalid_constant_error"]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"spark connect test: {time.monotonic() - started:.0f} s")
