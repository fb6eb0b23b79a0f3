"""The line's Maven artifact (jar, sources, POM), published to a local repository, gives a session with
the functions through `spark.jars.packages` + `spark.jars.repositories`, as `--packages` would."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pyspark
import pytest

from conftest import ROOT

VERSION = (ROOT / "version.txt").read_text().strip()
LINE = ".".join(pyspark.__version__.split(".")[:2])
ARTIFACT = f"subjxform-spark-{LINE}_2.13"
GROUP = "io.github.subjxform"
POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
pytestmark = pytest.mark.sbt  # publishes with sbt: never beside another sbt on this build


@pytest.fixture(scope="module")
def repository(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("maven-repo")
    subprocess.run(
        [
            "bash",
            str(ROOT / "scripts" / "sbt"),
            f"-Dspark.version={LINE}",
            f'set spark / publishTo := Some("local-test" at "{repo.as_uri()}")',
            "spark/publish",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=900,
    )
    return repo


def test_the_artifact_has_a_jar_sources_and_a_pom_with_its_metadata(repository):
    folder = repository / GROUP.replace(".", "/") / ARTIFACT / VERSION
    files = {p.name for p in folder.iterdir()}
    assert {f"{ARTIFACT}-{VERSION}.jar", f"{ARTIFACT}-{VERSION}-sources.jar", f"{ARTIFACT}-{VERSION}.pom"} <= files
    pom = ET.parse(folder / f"{ARTIFACT}-{VERSION}.pom").getroot()
    for field in ("name", "description", "url", "licenses", "scm", "developers"):
        assert pom.find(f"m:{field}", POM_NS) is not None, field
    dependencies = {
        (d.findtext("m:artifactId", namespaces=POM_NS), d.findtext("m:scope", namespaces=POM_NS))
        for d in pom.findall("m:dependencies/m:dependency", POM_NS)
    }
    # Spark and Scala come from the cluster; the engine is inside the jar, not a dependency.
    assert all(scope in ("provided", "test") for _, scope in dependencies), dependencies
    assert not any(a.startswith("subjxform-core") for a, _ in dependencies), dependencies


def test_spark_jars_packages_from_the_repository_give_a_session_with_the_functions(repository, tmp_path):
    job = (
        "from pyspark.sql import SparkSession\n"
        "spark = (SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')\n"
        f"    .config('spark.jars.packages', '{GROUP}:{ARTIFACT}:{VERSION}')\n"
        f"    .config('spark.jars.repositories', '{repository.as_uri()}')\n"
        f"    .config('spark.jars.ivy', '{tmp_path / 'ivy'}')\n"
        "    .getOrCreate())\n"
        "print(spark.sql(\"SELECT subject_transform('a.x', 'a.*', 'b.<<wildcard(1)>>')\").first()[0])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUBJXFORM_")}
    out = subprocess.run([sys.executable, "-c", job], capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "b.x"
