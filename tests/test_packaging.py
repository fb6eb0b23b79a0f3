"""One version everywhere, one pair of addresses everywhere, one engine per Scala version. What the built
artifacts carry (the wheel's jars and metadata, the sdist, the Maven artifacts and their POMs, the wheel
installed in a venv with and without pyspark, `--packages` from dist/maven) is checked on the artifacts
themselves by `bash scripts/release.sh` (CI: `--check-line 4.2_2.13`)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import subjxform
from conftest import ROOT
from subjxform.cli import java_command
from subjxform.session import LINES, jar_name

VERSION = (ROOT / "version.txt").read_text().strip()
JARS = Path(subjxform.__file__).parent / "jars"


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_version_everywhere():
    """version.txt is the version of the installed package, of `subjxform --version` (Python's and the jar's),
    of every built jar's manifest, of the docs' footer, and has its entry in the changelog."""
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION), VERSION
    assert subjxform.__version__ == VERSION
    python_cli = subprocess.run(
        [sys.executable, "-m", "subjxform", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (python_cli.returncode, python_cli.stdout) == (0, f"subjxform {VERSION}\n"), python_cli.stderr
    jar_cli = subprocess.run(java_command(["--version"]), capture_output=True, text=True, timeout=60)
    assert (jar_cli.returncode, jar_cli.stdout) == (0, f"subjxform {VERSION}\n"), jar_cli.stderr
    built = [JARS / jar_name(s, c) for s, c in LINES if (JARS / jar_name(s, c)).is_file()]
    assert built
    for jar in built:
        with zipfile.ZipFile(jar) as z:
            manifest = z.read("META-INF/MANIFEST.MF").decode()
            assert f"Implementation-Version: {VERSION}\r\n" in manifest, (jar.name, manifest)
    hooks = load(ROOT / "scripts" / "mkdocs_hooks.py", "mkdocs_hooks")
    assert hooks.on_config({})["copyright"] == f"subjxform {VERSION} · Apache License 2.0"
    assert f"\n## [{VERSION}] - " in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_project_addresses_agree():
    """The package index's links (setup.py), the POMs' url and scm (build.sbt) and the docs site's own
    addresses (mkdocs.yml) name the same source repository and docs site."""
    setup = load(ROOT / "setup.py", "subjxform_setup")
    build = (ROOT / "build.sbt").read_text(encoding="utf-8")
    mkdocs = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f'homepage := Some(url("{setup.SOURCE_URL}"))' in build
    assert f'ScmInfo(url("{setup.SOURCE_URL}"),' in build
    assert f"\nsite_url: {setup.DOCS_URL}\n" in mkdocs
    assert f"\nrepo_url: {setup.SOURCE_URL}\n" in mkdocs


def test_the_readme_links_become_addresses_on_the_docs_site_and_the_source_repository():
    setup = load(ROOT / "setup.py", "subjxform_setup")
    docs, source = setup.DOCS_URL, setup.SOURCE_URL
    assert setup.absolute_link("docs/index.md", "1.2.3") == docs
    assert setup.absolute_link("docs/guides/platforms.md#install", "1.2.3") == f"{docs}guides/platforms/#install"
    assert setup.absolute_link("docs/guides/index.md", "1.2.3") == f"{docs}guides/"
    assert setup.absolute_link("LICENSE", "1.2.3") == f"{source}/blob/v1.2.3/LICENSE"
    assert setup.absolute_link("https://example.org/x", "1.2.3") == "https://example.org/x"
    assert setup.absolute_link("#layout", "1.2.3") == "#layout"


def engine_classes(jar: Path) -> dict:
    """The Spark-free engine's class files in a line's jar (jvm/core: subjxform.engine, subjxform.config, subjxform.cli, and
    the Java 9 variants), by name."""
    with zipfile.ZipFile(jar) as z:
        return {
            n: z.read(n)
            for n in z.namelist()
            if n.endswith(".class")
            and n.startswith(("subjxform/engine/", "subjxform/config/", "subjxform/cli/", "META-INF/versions/9/"))
        }


def test_the_engine_is_compiled_once_for_every_line_of_a_scala_version():
    # scripts/build-jars.sh builds every line in one sbt session, with one engine per Scala version
    # (SparkLines.coreScala): every jar of that version carries the same bytes.
    for scala in sorted({c for _, c in LINES}):
        built = [JARS / jar_name(s, c) for s, c in LINES if c == scala and (JARS / jar_name(s, c)).is_file()]
        if len(built) < 2:
            continue
        first = engine_classes(built[0])
        assert len(first) > 100, built[0]
        for jar in built[1:]:
            other = engine_classes(jar)
            differing = sorted(n for n in first.keys() | other.keys() if first.get(n) != other.get(n))
            assert not differing, (built[0].name, jar.name, differing[:5], len(differing))


def test_every_jar_carries_the_nats_client_relocated_and_nothing_of_it_where_a_users_own_would_be():
    # project/Shading.scala: jnats and the Bouncy Castle classes it signs with live under subjxform/shaded/, so a
    # job's own jnats (another release) never meets ours; the source is registered by its short name.
    built = [JARS / jar_name(s, c) for s, c in LINES if (JARS / jar_name(s, c)).is_file()]
    assert built
    for jar in built:
        with zipfile.ZipFile(jar) as z:
            names = z.namelist()
            assert not [n for n in names if n.startswith(("io/nats/", "org/bouncycastle/", "org/jspecify/"))], jar.name
            for needed in (
                "subjxform/shaded/io/nats/client/Nats.class",
                "subjxform/shaded/io/nats/client/impl/SocketDataPort.class",
                "subjxform/shaded/io/nats/jnats/version.properties",
                "subjxform/shaded/org/bouncycastle/math/ec/rfc8032/Ed25519.class",
            ):
                assert needed in names, (jar.name, needed)
            # only what the client reaches: not Bouncy Castle's 6 MB provider
            assert not [n for n in names if n.startswith("subjxform/shaded/org/bouncycastle/jce/")], jar.name
            services = z.read("META-INF/services/org.apache.spark.sql.sources.DataSourceRegister").decode()
            assert services.split() == ["subjxform.spark.nats.NatsSource"], jar.name
