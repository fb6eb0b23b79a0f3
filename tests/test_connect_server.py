"""Spark Connect as docs/guides/spark-connect.md starts it: `subjxform connect-server` (the installed pyspark's
Spark with its line's jar), once for this module, and one client process (tests/connect_client.py) that runs every
function, every report and the upgrade check over it, with known answers. In the newest line's full run and Spark
3.5's compatibility suite (pytest -m compat); on Spark 3.5 the server needs its Connect package, whose jar SUBJXFORM_CONNECT_JARS
names (scripts/maven-jar.sh org.apache.spark:spark-connect_2.12:<version>), given as --connect-jar.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest

from conftest import COMPAT_RUN, HAS_JAR, ROOT
from processes import free_port, listening, stop, wait_until

pytestmark = [
    pytest.mark.compat,
    pytest.mark.cluster,
    pytest.mark.skipif(not HAS_JAR, reason="a Connect server with the jar"),
    # Of the older lines, Spark 3.5 starts it (its Connect server is a package of its own); a 4.x line's server is
    # the same code inside Spark as the newest line's, which its full run starts.
    pytest.mark.skipif(
        COMPAT_RUN and not pyspark.__version__.startswith("3."),
        reason="a 4.x line's Connect server is the newest line's: its full run starts it",
    ),
    pytest.mark.skipif(os.environ.get("SUBJXFORM_SKIP_CLUSTER") == "1", reason="SUBJXFORM_SKIP_CLUSTER=1"),
    # (without it the command would have spark-submit fetch the package: the network, in a test)
    pytest.mark.skipif(
        pyspark.__version__.startswith("3.") and not os.environ.get("SUBJXFORM_CONNECT_JARS"),
        reason="Spark 3.5's Connect server package: SUBJXFORM_CONNECT_JARS=$(bash scripts/maven-jar.sh "
        "org.apache.spark:spark-connect_2.12:<pyspark's version>)",
    ),
]

TESTS = Path(__file__).resolve().parent


def server_command(port: int, *options: str) -> list[str]:
    """The documented command, with a port of its own and a small local master."""
    command = [sys.executable, "-m", "subjxform", "connect-server", "--port", str(port), "--host", "127.0.0.1"]
    if os.environ.get("SUBJXFORM_CONNECT_JARS"):
        command += ["--connect-jar", os.environ["SUBJXFORM_CONNECT_JARS"]]
    return command + [
        *options,
        "--",
        "--master",
        "local[2]",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=4",  # (Spark's 200 tasks per aggregation would be most of the time)
    ]


@pytest.fixture(scope="module")
def found(tmp_path_factory) -> dict:
    """What the client found over a server started once for the module."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("connect") / "server.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            server_command(port),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # spark-submit's scripts and the JVM: stopped as a group
            env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"},
        )
        try:
            wait_until("the Spark Connect server", lambda: listening(port), 180, [server], log_path.read_text)
            client = subprocess.run(
                [sys.executable, str(TESTS / "connect_client.py"), f"sc://127.0.0.1:{port}"],
                capture_output=True,
                text=True,
                timeout=600,
                cwd=ROOT,
            )
        finally:
            stop(server, grace=30, group=True)
    assert client.returncode == 0, client.stderr[-4000:] + log_path.read_text()[-2000:]
    return json.loads(client.stdout.strip().splitlines()[-1])


def test_the_command_starts_the_installed_pysparks_spark_with_its_lines_jar():
    import pyspark

    import subjxform

    run = subprocess.run(server_command(15002, "--print"), capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert f"SPARK_HOME={Path(pyspark.__file__).parent.resolve()} " in run.stdout
    assert f"--jars {subjxform.jar_path()}" in run.stdout and "SparkConnectServer" in run.stdout


def test_every_column_function(found):
    f = found["functions"]
    eu, billing = f["orders.eu.42"], f["billing.1"]
    assert eu["transform"] == "orders.3.eu.42" and billing["transform"] is None  # FNV-1a("42") % 4 == 3
    assert eu["try_transform"] is None and billing["try_transform"] is None  # b.$2: invalid, NULL in the try_ form
    assert (eu["matches"], billing["matches"]) == (True, False)
    assert eu["map"] in ("orders.v1.3.eu.42", "orders.v2.3.eu.42") and billing["map"] == "billing.all.1"
    assert eu["explain"]["rule"] == "orders.*.*" and eu["explain"]["result"] == eu["map"]
    assert (eu["filter_transform"], billing["filter_transform"]) == ("o.42", "billing.1")
    assert eu["try_filter_transform"] is None  # overlapping sources: invalid, NULL
    assert (eu["group_partition"], eu["group_member"]) == (3, "b") and billing["group_partition"] is None
    # The same map in another order draws the same: a map key is hashed by its entries in key order.
    assert eu["map_keyed_by_headers"] == eu["map_keyed_by_same_map"]
    assert billing["map_keyed_by_headers"] == billing["map_keyed_by_same_map"]


def test_the_plans_streams_and_accounts(found):
    assert [p["rule"] for p in found["mappings_plan"]] == ["orders.*.*", "orders.eu.*", "billing.refund", "billing.*"]
    assert found["group_plan"]["kind"] == "elastic" and len(found["group_plan"]["members"]) == 2
    assert found["stream_plan"]["subjects"] == ["orders.>"]
    assert found["stream_messages"] == [["orders.eu.42", "o.42.eu"]]
    assert found["accounts_plan_routes"] == 1
    assert found["replay"] == [["A", "a.orders.1", "publish"], ["B", "from-a.orders.1", "stream import"]]


def test_every_report_and_the_upgrade_check(found):
    r = found["reports"]
    assert r["rule_coverage"] == {"never_fire": ["orders.eu.*", "billing.refund"], "total": 2000}
    assert r["config_diff"] == {"changed": 200, "unchanged": 1600, "newly_dropped": 100, "newly_mapped": 100}
    assert r["partition_balance"] == [[4, 1600]]
    assert r["partition_balance_whole_subject"] == [[4, [], 1600]]
    assert r["canary_check"] == [[0.9, 1600], [0.1, 1600]]
    # 2.10's server process exits on the first {{partition(0,...)}} message (a crash); 2.15's deliver it.
    assert r["server_upgrade"]["crashes_before"] == 1600 and r["server_upgrade"]["unchanged"] == 400
    assert r["server_upgrade"]["newly_delivered"] == 0
    assert r["group_balance"] == 1600 and r["group_diff"] == 1600
    assert found["report_rows"] == 5  # a row per rule and destination (rule 0 has two)


def test_a_report_shows_itself_in_a_notebook(found):
    html = found["report_html"]
    assert "<table>" in html and "orders.v1.{{partition(4,2)}}.$1.$2" in html
    assert "data:image/png;base64," in html or "the chart needs matplotlib" in html


def test_what_a_connect_client_cannot_do_says_what_to_do(found):
    assert "subjxform connect-server" in found["register"]
    assert found["validate_mappings"].startswith("RuntimeError") and "classic" in found["validate_mappings"]


def test_errors_name_what_to_fix_and_do_not_repeat_the_table(found):
    assert "UNEXPECTED_INPUT_TYPE" in found["bigint_subject"] and "`subject`" in found["bigint_subject"]
    assert "BIGINT" in found["bigint_subject"]
    # The plan Spark prints with the error names the 400-rule table shortened (the server's stack, which the
    # client shows after it, is Spark's: spark.sql.connect.serverStacktrace.enabled).
    error = found["long_table_error"].split("\n\nJVM stacktrace:")[0]
    assert "x.$2" in error and "wildcard index out of range" in error
    assert "r399.*" not in error and "characters)" in error and len(error) < 1500, error
    assert "spark.subjxform.serverVersion" in found["bad_conf"] and '"2.12.x"' in found["bad_conf"]
