"""A standalone Spark cluster for tests: a master and workers on 127.0.0.1, from the pyspark installation,
each process in its own process group and all stopped on exit (see test_cluster.py, test_task_reruns.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pyspark
import pytest

from processes import TEST_JVM_OPTIONS, free_ports, stop, wait_until

SPARK_HOME = Path(pyspark.__file__).parent
TESTS = Path(__file__).resolve().parent
PYTHON_SRC = TESTS.parent / "python" / "src"


def spark_env(workdir: str) -> dict:
    env = dict(os.environ)
    env.update(
        {
            "SPARK_HOME": str(SPARK_HOME),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_WORKER_DIR": os.path.join(workdir, "work"),
            "SPARK_LOG_DIR": os.path.join(workdir, "logs"),
            "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable,
            # the master and workers (spark-class reads these) get the tests' JIT options, as the driver does
            "SPARK_DAEMON_JAVA_OPTS": TEST_JVM_OPTIONS,
            "PYTHONPATH": os.pathsep.join([str(PYTHON_SRC), str(TESTS), env.get("PYTHONPATH", "")]),
        }
    )
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

    def log(self, name: str, chars: int = 3000) -> str:
        with open(os.path.join(self.workdir, name + ".log"), encoding="utf-8", errors="replace") as f:
            return f.read()[-chars:]

    def __enter__(self) -> Processes:
        return self

    def run_job(self, name: str, args: list[str], env: dict, extra_args: list[str] = (), timeout: float = 240) -> dict:
        """Runs a job script (`args` ends with its path; its first argument is where it writes its JSON
        result) to completion; what it wrote."""
        out = os.path.join(self.workdir, name + "-result.json")
        job = self.start(name, [*args, out, *extra_args], env)
        try:
            rc = job.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{name} took more than {timeout:.0f} s: " + self.log(name))
        assert rc == 0, self.log(name)
        with open(out, encoding="utf-8") as f:
            return json.load(f)

    def submit(
        self,
        name: str,
        master: str,
        job: Path,
        env: dict,
        *confs: str,
        timeout: float = 240,
        extra_args: list[str] = (),
    ) -> dict:
        """`spark-submit --jars subjxform.jar` of a job script to the cluster (one-core executors of 512 MB,
        no UI, plus `confs` as `key=value`); what the job wrote (see run_job)."""
        import subjxform

        args = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", master, "--jars", subjxform.jar_path()]
        executor_jvm = f"spark.executor.extraJavaOptions={TEST_JVM_OPTIONS}"
        for conf in (
            "spark.executor.memory=512m",
            "spark.executor.cores=1",
            "spark.ui.enabled=false",
            executor_jvm,
            *confs,
        ):
            args += ["--conf", conf]
        return self.run_job(name, [*args, str(job)], env, extra_args=extra_args, timeout=timeout)

    def wait_until(self, what: str, ready, timeout: float, names: list[str]) -> None:
        wait_until(
            what,
            ready,
            timeout,
            [p for n, p in self.procs if n in names],
            log=lambda: " | ".join(self.log(n) for n in names),
        )

    def start_cluster(self, env: dict, workers: int = 2) -> tuple[str, int]:
        """A master and `workers` workers of one core and 1 GiB each; the master's URL and UI port, once
        every worker has registered."""
        spark_class = str(SPARK_HOME / "bin" / "spark-class")
        # Every port chosen up front and distinct: a worker's UI must not take the master's before it binds.
        port, ui, *worker_uis = free_ports(2 + workers)
        master = f"spark://127.0.0.1:{port}"
        self.start(
            "master",
            [
                spark_class,
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--webui-port",
                str(ui),
            ],
            env,
        )
        names = ["master"]
        for i, worker_ui in enumerate(worker_uis, 1):
            names.append(f"worker{i}")
            self.start(
                f"worker{i}",
                [
                    spark_class,
                    "org.apache.spark.deploy.worker.Worker",
                    master,
                    "--host",
                    "127.0.0.1",
                    "--cores",
                    "1",
                    "--memory",
                    "1g",
                    "--webui-port",
                    str(worker_ui),
                    "--work-dir",
                    os.path.join(self.workdir, f"work{i}"),
                ],
                env,
            )

        def ui_port() -> int:
            # The chosen port may be taken between its choice and the master's start (another Spark UI of the
            # run): the master then binds the next one, which its log names.
            bound = re.findall(r"MasterWebUI.* started at http://[^:/]+:(\d+)", self.log("master", chars=10**6))
            return int(bound[-1]) if bound else ui

        def registered() -> bool:
            with urllib.request.urlopen(f"http://127.0.0.1:{ui_port()}/json/", timeout=2) as r:
                body = r.read()
            try:
                return json.loads(body).get("aliveworkers", 0) == workers
            except ValueError:  # another process's page on that port: not the master's yet
                return False

        self.wait_until(f"{workers} workers", registered, 90, names)
        return master, ui_port()

    def __exit__(self, *exc) -> None:
        for _name, proc in reversed(self.procs):
            stop(proc, group=True)
