"""The checks of `bash scripts/release.sh`: what it built into dist/ is checked as a user's machine would use
it, each check printed with its result and its time, then every artifact with its size. Exit code 1 when any
check failed. Run by release.sh with its tools' Python (twine, build and trove-classifiers installed):

    python scripts/release_check.py --dist dist --python python3 --maven-lines "3.5_2.12 ..." \
        --example-lines "3.5_2.12 ..." --submit-lines "3.5_2.12 4.3_2.13" [--all-pythons]

- the Maven artifacts: each line's jar, sources, javadoc (scaladoc) and POM in the repository layout, every
  file with its .md5, .sha1, .sha256 and .sha512; the POM's metadata and dependencies (only what a cluster
  has: Spark SQL and the Scala library, `provided`); the jar is byte for byte the jar the wheel carries for
  that line, with the version in its manifest and for `subjxform --version`;
- the wheel and the sdist: every line's jar, the console script, no pyspark requirement, the licence files,
  complete metadata (classifiers PyPI knows, project URLs, a long description whose links all lead
  somewhere from a package index), `twine check --strict`, and the sdist builds the same wheel;
- the wheel installed as a user installs it, in a venv, run from a folder outside the source tree: without
  pyspark, the command line on Java alone; beside each line's pyspark, the README's first example prints
  what the README shows; and `spark-submit --packages ... --repositories file://.../dist/maven`, the
  pyspark's own, resolves the line's artifact from dist/maven and runs a subject_transform query.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python" / "src"))
from subjxform.session import spark_line_table  # noqa: E402  (the source tree's: the one list of lines)

ROOT = Path(__file__).resolve().parent.parent
GROUP = "io.github.subjxform"
POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
DIGESTS = {"md5": hashlib.md5, "sha1": hashlib.sha1, "sha256": hashlib.sha256, "sha512": hashlib.sha512}
SOURCE_URL = "https://github.com/subjxform/subjxform"
DOCS_URL = "https://subjxform.github.io/subjxform/"


# Each Spark line's pyspark release (as scripts/test-lines.sh runs it) and the Python the release runs it on, from
# the one list of lines: together they are the Python versions the wheel's classifiers name (a line with no
# pyspark package, "-", is left out).
PYSPARK = {row["line"]: (row["pyspark"], row["python"]) for row in spark_line_table() if row["pyspark"] != "-"}
# Where PySpark 3.5 needs the SQL extension named: it does not apply the jar's service entry.
EXTENSIONS_CONF = "spark.sql.extensions=subjxform.spark.SubjxformExtensions"
# The README's first Python example and the output it shows (tests/test_docs.py runs every such block).
README_EXAMPLE = re.compile(r"<!-- doc-test -->\n```python\n(.*?)```\n```text\n(.*?)```\n", re.S)
SUBMIT_QUERY = "SELECT subject_transform('orders.eu.42', 'orders.*.*', 'shipments.{{wildcard(2)}}.$1')"


class Failed(Exception):
    pass


def expect(condition: object, message: str) -> None:
    if not condition:
        raise Failed(message)


class Checks:
    def __init__(self) -> None:
        self.results: list[tuple[str, bool, float]] = []

    def run(self, name: str, check: Callable[..., str], *args: object) -> bool:
        """Runs check(*args), which returns what it found or raises Failed, and prints the result and time."""
        start = time.monotonic()
        try:
            detail, ok = check(*args), True
        except Failed as e:
            detail, ok = str(e), False
        except subprocess.TimeoutExpired as e:
            detail, ok = f"timed out after {e.timeout} s: {' '.join(map(str, e.cmd))[:200]}", False
        seconds = time.monotonic() - start
        self.results.append((name, ok, seconds))
        print(
            f"release: [{'ok' if ok else 'FAIL'}] {name} ({seconds:.1f} s){': ' + detail if detail else ''}", flush=True
        )
        return ok

    @property
    def failed(self) -> list[str]:
        return [name for name, ok, _ in self.results if not ok]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: nothing of this source tree, its venv or its test settings."""
    dropped = ("PYTHONPATH", "VIRTUAL_ENV", "SPARK_HOME", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "CLASSPATH")
    env = {k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("SUBJXFORM_")}
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    env["PIP_ROOT_USER_ACTION"] = "ignore"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return {**env, **extra}


def activated(venv: Path, **extra: str) -> dict[str, str]:
    """A user's shell with the venv activated: its python and Spark's Python workers are the venv's."""
    return clean_env(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", **extra)


def run(args: list, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("env", clean_env())
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, **kwargs)


def succeed(args: list, what: str, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    done = run(args, timeout=timeout, **kwargs)
    expect(done.returncode == 0, f"{what} exited {done.returncode}: {(done.stderr or done.stdout).strip()[-2000:]}")
    return done


def zip_entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist() if not n.endswith("/")}


def jar_name(line: str) -> str:
    return f"subjxform-spark-{line}.jar"


# --- the Maven artifacts ---------------------------------------------------------------------------------


def artifact_folder(dist: Path, line: str, version: str) -> Path:
    return dist / "maven" / GROUP.replace(".", "/") / f"subjxform-spark-{line}" / version


def check_checksums(dist: Path) -> str:
    files = [p for p in sorted((dist / "maven").rglob("*")) if p.is_file() and p.suffix.lstrip(".") not in DIGESTS]
    expect(files, "dist/maven holds no artifact")
    for path in files:
        data = path.read_bytes()
        for name, digest in DIGESTS.items():
            written = path.with_name(f"{path.name}.{name}")
            expect(written.is_file(), f"no {written.relative_to(dist)}")
            expect(written.read_text().strip() == digest(data).hexdigest(), f"{written.relative_to(dist)} is wrong")
    return f"{len(files)} files, each with .{', .'.join(DIGESTS)}"


def check_maven_artifact(dist: Path, line: str, version: str, wheel: Path) -> str:
    spark, scala = line.split("_")
    artifact = f"subjxform-spark-{line}"
    folder = artifact_folder(dist, line, version)
    base = folder / f"{artifact}-{version}"
    for suffix in (".jar", "-sources.jar", "-javadoc.jar", ".pom"):
        expect(Path(f"{base}{suffix}").is_file(), f"no {base.name}{suffix} in {folder.relative_to(dist)}")

    pom = ET.parse(f"{base}.pom").getroot()
    coordinates = tuple(text_of(pom, f"m:{field}") for field in ("groupId", "artifactId", "version"))
    expect(coordinates == (GROUP, artifact, version), f"POM coordinates {coordinates}")
    expect(text_of(pom, "m:packaging") in ("", "jar"), f"POM packaging {text_of(pom, 'm:packaging')}")
    # What Maven Central requires of a POM.
    for field in (
        "m:name",
        "m:description",
        "m:url",
        "m:scm/m:url",
        "m:scm/m:connection",
        "m:developers/m:developer/m:name",
    ):
        expect(text_of(pom, field), f"POM: no {field}")
    licenses = [(text_of(lic, "m:name"), text_of(lic, "m:url")) for lic in pom.findall("m:licenses/m:license", POM_NS)]
    expect(licenses and licenses[0][0] == "Apache-2.0" and "LICENSE-2.0" in licenses[0][1], f"POM licences {licenses}")
    expect(pom.find("m:repositories", POM_NS) is None, "the POM names repositories")
    dependencies = [
        (text_of(d, "m:groupId"), text_of(d, "m:artifactId"), text_of(d, "m:version"), text_of(d, "m:scope"))
        for d in pom.findall("m:dependencies/m:dependency", POM_NS)
    ]
    # What a cluster of the line already has, and nothing else: Spark SQL and the Scala library, provided.
    cluster = {("org.apache.spark", f"spark-sql_{scala}"), ("org.scala-lang", "scala-library")}
    expect({(g, a) for g, a, _, _ in dependencies} == cluster, f"POM dependencies {dependencies}")
    for group, name, dep_version, scope in dependencies:
        expect(scope == "provided", f"POM: {group}:{name} is {scope or 'compile'}, not provided")
        minor = ".".join(dep_version.split(".")[:2])
        expect(minor == (spark if group == "org.apache.spark" else scala), f"POM: {group}:{name}:{dep_version}")

    jar = Path(f"{base}.jar").read_bytes()
    expect(zip_entries(wheel).get(f"subjxform/jars/{jar_name(line)}") == jar, "the jar differs from the wheel's")
    entries = zip_entries(Path(f"{base}.jar"))
    manifest = dict(
        line.split(": ", 1) for line in entries["META-INF/MANIFEST.MF"].decode().splitlines() if ": " in line
    )
    expect(manifest.get("Implementation-Version") == version, f"manifest Implementation-Version {manifest}")
    expect(entries.get("subjxform/version.txt", b"").decode().strip() == version, "the jar's version.txt")
    sources = zip_entries(Path(f"{base}-sources.jar"))
    for source in ("subjxform/spark/functions.scala", "subjxform/engine/SubjectTransform.scala"):
        expect(source in sources, f"the sources jar has no {source}")
    expect("index.html" in zip_entries(Path(f"{base}-javadoc.jar")), "the javadoc jar has no index.html")
    return f"{artifact}:{version}: jar (= the wheel's), sources, scaladoc, POM; dependencies {sorted(cluster)} provided"


def text_of(element: ET.Element, path: str) -> str:
    return (element.findtext(path, namespaces=POM_NS) or "").strip()


# --- the wheel and the sdist ------------------------------------------------------------------------------


def metadata(wheel: Path) -> tuple[dict[str, list[str]], str]:
    """The wheel's METADATA: its header fields (name -> values) and its long description."""
    raw = next(data for name, data in zip_entries(wheel).items() if name.endswith(".dist-info/METADATA")).decode()
    header, _, body = raw.partition("\n\n")
    fields: dict[str, list[str]] = {}
    for line in header.splitlines():
        name, _, value = line.partition(": ")
        fields.setdefault(name, []).append(value)
    return fields, body


def check_wheel(wheel: Path, version: str, lines: list[str]) -> str:
    expect(wheel.name == f"subjxform-{version}-py3-none-any.whl", f"wheel name {wheel.name}")
    entries = zip_entries(wheel)
    for line in lines:
        expect(f"subjxform/jars/{jar_name(line)}" in entries, f"the wheel has no {jar_name(line)}")
    # The command line's Scala library (build.sbt puts the default line's beside its jar).
    expect(any(n.startswith("subjxform/jars/scala-library-2.13.") for n in entries), "no Scala library in the wheel")
    expect("subjxform/py.typed" in entries, "no py.typed (PEP 561: type checkers would not read the hints)")
    entry_points = next(data for n, data in entries.items() if n.endswith(".dist-info/entry_points.txt")).decode()
    expect("subjxform = subjxform.cli:main" in entry_points, "no subjxform console script")
    for name in ("LICENSE", "NOTICE"):
        expect(f"subjxform-{version}.dist-info/licenses/{name}" in entries, f"no {name} in the wheel")
    fields, _ = metadata(wheel)
    expect(fields.get("Version") == [version], f"Version {fields.get('Version')}")
    expect(fields.get("License-Expression") == ["Apache-2.0"], f"License-Expression {fields.get('License-Expression')}")
    expect(fields.get("License-File") == ["LICENSE", "NOTICE"], f"License-File {fields.get('License-File')}")
    # pyspark only as an extra: installing the wheel never replaces a platform's pyspark.
    requires = [r for r in fields.get("Requires-Dist", []) if r.startswith("pyspark")]
    expect(requires and all("extra ==" in r for r in requires), f"Requires-Dist {requires}")
    urls = dict(u.split(", ", 1) for u in fields.get("Project-URL", []))
    expect(set(urls) == {"Documentation", "Source", "Changelog", "Issues"}, f"Project-URL {urls}")
    expect(fields.get("Keywords") and fields.get("Requires-Python") == [">=3.10"], "Keywords, Requires-Python")
    expect(fields.get("Description-Content-Type") == ["text/markdown"], "the long description is not Markdown")
    return f"{len(lines)} lines' jars, console script, py.typed, LICENSE and NOTICE, metadata"


def check_classifiers(wheel: Path) -> str:
    from trove_classifiers import classifiers as known  # PyPI refuses an upload with any other

    listed = metadata(wheel)[0].get("Classifier", [])
    unknown = [c for c in listed if c not in known]
    expect(listed and not unknown, f"classifiers PyPI does not know: {unknown}")
    return f"{len(listed)} classifiers, all known to the package index"


def check_long_description(wheel: Path) -> str:
    """Every link of the README, as the package index shows it, leads somewhere: a docs site page that this
    tree's docs/ has, or a file of the source repository that this tree has."""
    _, body = metadata(wheel)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    expect(body.strip().splitlines()[0] == readme.splitlines()[0], "the long description is not the README")
    links = re.findall(r"\]\(([^)\s]+)\)", body)
    expect(links, "no link in the long description")
    for link in links:
        target = link.partition("#")[0]
        if target.startswith(DOCS_URL):
            page = target[len(DOCS_URL) :].rstrip("/")
            expect(
                (ROOT / "docs" / f"{page}.md").is_file() or (ROOT / "docs" / page / "index.md").is_file(),
                f"{link}: no such page in docs/",
            )
        elif target.startswith(f"{SOURCE_URL}/blob/"):
            path = target.split("/blob/", 1)[1].split("/", 1)[1]
            expect((ROOT / path).exists(), f"{link}: no such file in the repository")
        else:
            expect(target.startswith("https://"), f"{link}: not an absolute link (points nowhere on an index page)")
    return f"{len(links)} links, all absolute and leading to a page or file that exists"


def check_twine(tools: Path, dist: Path) -> str:
    files = sorted(dist.glob("subjxform-*"))
    done = succeed([tools / "twine", "check", "--strict", *files], "twine check")
    expect("PASSED" in done.stdout and "WARNING" not in done.stdout, done.stdout)
    return " ".join(f"{f.name} PASSED" for f in files)


def check_sdist(sdist: Path) -> str:
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    needed = ["PKG-INFO", "README.md", "LICENSE", "NOTICE", "CHANGELOG.md", "version.txt", "setup.py", "pyproject.toml"]
    missing = [n for n in needed if n not in names]
    expect(not missing, f"the sdist lacks {missing}")
    jars = sorted(n for n in names if n.startswith("python/src/subjxform/jars/"))
    expect(jars, "the sdist carries no jar: a wheel built from it would need sbt")
    return f"{len(names)} files, {len(jars)} jars"


def check_sdist_builds_the_same_wheel(tools: Path, sdist: Path, wheel: Path, work: Path) -> str:
    with tarfile.open(sdist) as t:
        t.extractall(work, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (source,) = [p for p in work.iterdir() if p.is_dir()]
    out = work / "wheel"
    succeed([tools / "python", "-m", "build", "--wheel", "--outdir", out, source], "a wheel from the sdist", 900)
    (rebuilt,) = out.glob("*.whl")
    expect(rebuilt.name == wheel.name, f"{rebuilt.name} != {wheel.name}")
    ours, theirs = zip_entries(wheel), zip_entries(rebuilt)
    differing = sorted(n for n in ours.keys() | theirs.keys() if ours.get(n) != theirs.get(n))
    expect(not differing, f"the wheels differ in {differing[:10]}")
    return f"{len(ours)} files, byte for byte the same"


# --- the wheel on a user's machine ------------------------------------------------------------------------


def python_minor(python: str) -> str | None:
    try:
        done = run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], timeout=60)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def find_python(minor: str, fallback: str) -> tuple[str, str]:
    """An interpreter of Python `minor` (python3.X on PATH, or a pyenv installation), else the fallback."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = [shutil.which(f"python{minor}")] + sorted(str(p) for p in pyenv.glob(f"{minor}.*/bin/python{minor}"))
    for candidate in filter(None, found):
        if python_minor(candidate) == minor:
            return candidate, minor
    return fallback, python_minor(fallback) or "?"


def line_venv(line: str, minor: str, shared_minor: str | None) -> Path:
    """scripts/test-lines.sh's venv of the line (.tools/venvs/spark-<line>, made with the same --python) when the
    line runs on that Python, else a venv of its own beside it."""
    venvs = ROOT / ".tools" / "venvs"
    return venvs / (f"spark-{line}" if minor == shared_minor else f"spark-{line}-py{minor}")


def check_line_venv(venv: Path, line: str, python: str, minor: str) -> str:
    """The line's venv with its pyspark, made and installed once; the wheel is installed again on every run."""
    version = PYSPARK[line][0]
    if python_minor(str(venv / "bin" / "python")) != minor:
        shutil.rmtree(venv, ignore_errors=True)
        succeed([python, "-m", "venv", venv], f"python{minor} -m venv")
    have = run([venv / "bin" / "python", "-c", "import importlib.metadata as m; print(m.version('pyspark'))"])
    if have.stdout.strip() != version:
        succeed([venv / "bin" / "python", "-m", "pip", "install", "-q", f"pyspark=={version}"], "pip install", 1800)
    return f"{venv.relative_to(ROOT)}, Python {minor}"


def install_wheel(venv: Path, wheel: Path) -> None:
    """As a user installs it: pip install of the file (it has no requirement, so pip fetches nothing)."""
    python = venv / "bin" / "python"
    succeed([python, "-m", "pip", "uninstall", "-q", "-y", "subjxform"], "pip uninstall")
    succeed([python, "-m", "pip", "install", "-q", wheel], "pip install of the wheel")


def check_cli_without_pyspark(python: str, wheel: Path, work: Path) -> str:
    """`subjxform mapping`, `validate`, `sql` and `--version` need no pyspark (the wheel ships the Scala library
    they run with); `subjxform report`, which does, says in one line what to install."""
    venv = work / "venv"
    succeed([python, "-m", "venv", venv], "venv")
    install_wheel(venv, wheel)
    expect(run([venv / "bin" / "python", "-c", "import pyspark"], cwd=work).returncode == 1, "pyspark is installed")
    cli = venv / "bin" / "subjxform"

    def command(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return run([cli, *args], input=stdin, timeout=120, cwd=work)

    version = wheel.name.split("-")[1]
    shown = command("--version")
    expect(shown.stdout.strip() == f"subjxform {version}", f"--version printed {shown.stdout!r}")
    mapped = command("mapping", "orders.*.*", "shipments.{{wildcard(2)}}.$1", "orders.eu.42")
    expect((mapped.returncode, mapped.stdout.strip()) == (0, "shipments.42.eu"), f"mapping: {mapped}")
    valid = command("validate", "--mappings", "-", stdin='orders.*: "orders.central.$1"')
    expect(valid.returncode == 0, f"validate: {valid.stdout}{valid.stderr}")
    invalid = command("validate", "--mappings", "-", stdin='orders.*: "orders.{{wildcard(2)}}"')
    expect(invalid.returncode == 1 and "wildcard index out of range" in invalid.stdout + invalid.stderr, "validate")
    # `subjxform sql` is Python alone: the SQL text of a table, with neither pyspark nor a JVM
    sql = command("sql", "-", stdin='orders.*: "orders.central.$1"')
    expect(sql.returncode == 0 and "CASE WHEN" in sql.stdout and "substring_index" in sql.stdout, f"sql: {sql}")
    bad_sql = command("sql", "-", stdin='orders.*: "orders.{{wildcard(2)}}"')
    expect(bad_sql.returncode == 1 and "wildcard index out of range" in bad_sql.stderr, f"sql: {bad_sql}")
    expect("Traceback" not in bad_sql.stderr, bad_sql.stderr)
    (work / "m.conf").write_text('orders.*: "orders.central.$1"')
    (work / "t.json").write_text('{"subject": "orders.1"}')
    report = command("report", str(work / "t.json"), "--mappings", str(work / "m.conf"))
    expect(
        report.returncode == 2
        and report.stderr.strip()
        == (
            "subjxform report needs pyspark and matplotlib: pip install 'subjxform[reports]' "
            "(matplotlib), and 'subjxform[spark]' where no pyspark is installed"
        ),
        f"report: {report.returncode} {report.stderr}",
    )
    return "--version, mapping, validate and sql on Java alone; report names what to install"


def normalized(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def check_readme_example(line: str, venv: Path, wheel: Path, work: Path) -> str:
    found = README_EXAMPLE.search((ROOT / "README.md").read_text(encoding="utf-8"))
    expect(found, "README.md has no <!-- doc-test --> python block with its output")
    code, shown = found.groups()
    install_wheel(venv, wheel)
    python = venv / "bin" / "python"
    before = run([python, "-c", "import importlib.metadata as m; print(m.version('pyspark'))"]).stdout.strip()
    expect(before == PYSPARK[line][0], f"pyspark {before} in {venv}")
    where = succeed([python, "-c", "import subjxform; print(subjxform.__file__)"], "import", cwd=work).stdout
    expect(Path(where.strip()).is_relative_to(venv), f"subjxform imported from {where.strip()}, not the venv")
    (work / "example.py").write_text(code, encoding="utf-8")
    done = succeed(["python", "example.py"], "the README's example", timeout=600, cwd=work, env=activated(venv))
    expect(normalized(done.stdout) == normalized(shown), f"it printed:\n{done.stdout}")
    return f"pyspark {before} on Python {python_minor(str(python))}: prints what the README shows"


def check_spark_submit_packages(line: str, venv: Path, dist: Path, version: str, work: Path) -> str:
    coordinates = f"{GROUP}:subjxform-spark-{line}:{version}"
    spark_home = Path(
        succeed(
            [venv / "bin" / "python", "-c", "import pyspark, os; print(os.path.dirname(pyspark.__file__))"], ""
        ).stdout.strip()
    )
    (work / "job.py").write_text(
        "from pyspark.sql import SparkSession\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        f'print("result:", spark.sql("{SUBMIT_QUERY}").first()[0])\n'
    )
    repository = (dist / "maven").resolve().as_uri()
    conf = ["--conf", EXTENSIONS_CONF] if line.startswith("3.") else []
    done = succeed(
        [
            spark_home / "bin" / "spark-submit",
            "--master",
            "local[1]",
            "--packages",
            coordinates,
            "--repositories",
            repository,
            "--conf",
            f"spark.jars.ivy={work / 'ivy'}",
            "--conf",
            "spark.ui.enabled=false",
            *conf,
            "job.py",
        ],
        "spark-submit",
        timeout=900,
        cwd=work,
        # a home of its own: the local Maven repository (~/.m2) must not answer for dist/maven
        env=activated(venv, SPARK_HOME=str(spark_home), SPARK_SUBMIT_OPTS=f"-Duser.home={work / 'home'}"),
    )
    expect("result: shipments.42.eu" in done.stdout, f"it printed {done.stdout[-1000:]}")
    found = re.search(
        rf"found {re.escape(GROUP)}#subjxform-spark-{re.escape(line)};{re.escape(version)} in (\S+)", done.stderr
    )
    expect(found and found.group(1) != "central", f"not resolved from dist/maven: {done.stderr[-2000:]}")
    fetched = work / "ivy" / "jars" / f"{GROUP}_subjxform-spark-{line}-{version}.jar"
    artifact = artifact_folder(dist, line, version) / f"subjxform-spark-{line}-{version}.jar"
    expect(fetched.is_file() and fetched.read_bytes() == artifact.read_bytes(), f"{fetched} is not dist's jar")
    fetched_jars = sorted(p.name for p in (work / "ivy" / "jars").iterdir())
    expect(len(fetched_jars) == 1, f"--packages fetched more than the artifact: {fetched_jars}")
    return f"--packages {coordinates} found in {found.group(1)} ({repository}), nothing else fetched; query answered"


def check_pythons_run(wheel: Path, pythons: set[str]) -> str:
    named = {
        c.rsplit(" :: ", 1)[1]
        for c in metadata(wheel)[0].get("Classifier", [])
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    expect(named == pythons, f"the classifiers name Python {sorted(named)}; the wheel ran on {sorted(pythons)}")
    return ", ".join(sorted(pythons))


# --- the run ---------------------------------------------------------------------------------------------


def sizes(dist: Path) -> None:
    print("release: artifacts in dist/")
    for path in sorted(dist.rglob("*")):
        if path.is_file() and path.suffix.lstrip(".") not in DIGESTS:
            print(f"  {path.stat().st_size / 1e6:9.3f} MB  {path.relative_to(dist)}")
    total = sum(p.stat().st_size for p in dist.rglob("*") if p.is_file())
    print(
        f"  {total / 1e6:9.3f} MB  in all ({sum(1 for p in dist.rglob('*') if p.is_file())} files, checksums included)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, required=True)
    parser.add_argument("--python", required=True, help="the interpreter of a line whose Python is not found")
    parser.add_argument("--all-lines", required=True, help="every line the wheel carries a jar for")
    parser.add_argument("--maven-lines", required=True, help="the lines whose Maven artifact is in dist/maven")
    parser.add_argument("--example-lines", required=True, help="the lines whose pyspark runs the README's example")
    parser.add_argument("--submit-lines", required=True, help="the lines spark-submit --packages is run on")
    parser.add_argument("--all-pythons", action="store_true", help="check the classifiers' Pythons were all run")
    args = parser.parse_args()
    dist = args.dist.resolve()
    version = (ROOT / "version.txt").read_text(encoding="utf-8").strip()
    tools = Path(sys.executable).parent
    (wheel,) = dist.glob("subjxform-*.whl")
    (sdist,) = dist.glob("subjxform-*.tar.gz")
    checks = Checks()
    scratch = Path(tempfile.mkdtemp(prefix="subjxform-release-"))  # outside the source tree, as a user's folder
    folder = iter(range(1000))

    def work() -> Path:
        path = scratch / str(next(folder))
        path.mkdir()
        return path

    try:
        checks.run("wheel: contents and metadata", check_wheel, wheel, version, args.all_lines.split())
        checks.run("wheel: classifiers", check_classifiers, wheel)
        checks.run("wheel: the long description's links", check_long_description, wheel)
        checks.run("twine check --strict", check_twine, tools, dist)
        checks.run("sdist: contents", check_sdist, sdist)
        checks.run("sdist: builds the same wheel", check_sdist_builds_the_same_wheel, tools, sdist, wheel, work())
        checks.run("maven: checksums", check_checksums, dist)
        for line in args.maven_lines.split():
            checks.run(f"maven: {line}: artifact and POM", check_maven_artifact, dist, line, version, wheel)
        checks.run("wheel without pyspark: the command line", check_cli_without_pyspark, args.python, wheel, work())
        pythons = set()
        shared_minor = python_minor(args.python)
        for line in args.example_lines.split():
            python, minor = find_python(PYSPARK[line][1], args.python)
            if minor != PYSPARK[line][1]:
                print(f"release: Python {PYSPARK[line][1]} not found: pyspark {PYSPARK[line][0]} runs on {minor}")
            venv = line_venv(line, minor, shared_minor)
            if not checks.run(
                f"{line}: a venv with pyspark {PYSPARK[line][0]}", check_line_venv, venv, line, python, minor
            ):
                continue
            if checks.run(f"{line}: the README's first example", check_readme_example, line, venv, wheel, work()):
                pythons.add(minor)
            if line in args.submit_lines.split():
                checks.run(
                    f"{line}: spark-submit --packages from dist/maven",
                    check_spark_submit_packages,
                    line,
                    venv,
                    dist,
                    version,
                    work(),
                )
        if args.all_pythons:
            checks.run("the classifiers' Pythons are the ones run", check_pythons_run, wheel, pythons)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    sizes(dist)
    passed = len(checks.results) - len(checks.failed)
    print(f"release: {passed} passed, {len(checks.failed)} failed")
    for name in checks.failed:
        print(f"release: FAILED: {name}")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
