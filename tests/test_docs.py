"""The README's and the docs site's examples are true, and the site builds.

Each block marked ``<!-- doc-test -->`` in README.md or docs/**/*.md runs, and what it prints must be the
``text`` block that follows it. The Spark SQL example runs in the real ``spark-sql`` shell. ``mkdocs build
--strict`` must pass: no broken link or anchor, every SQL function and CLI command in the reference.

``python tests/test_docs.py [FILE...]`` prints what each block prints now (to compare by eye when editing).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
TEXTS = {page: page.read_text(encoding="utf-8") for page in PAGES}
README = TEXTS[ROOT / "README.md"]

PYTHON_EXAMPLE = re.compile(r"<!-- doc-test -->\n```python\n(.*?)```\n(?:```text\n(.*?)```\n)?", re.S)
SQL_EXAMPLE = re.compile(
    r"<!-- doc-test: spark-sql -->\n```bash\n(spark-sql [^\n]*)\n```\n```sql\n(.*?)```\n```text\n(.*?)```\n", re.S
)


def python_examples() -> list[tuple[str, str, str]]:
    """(page, code, what it prints) of every tested Python block, in page order."""
    found = [
        (str(page.relative_to(ROOT)), m.group(1), m.group(2) or "")
        for page, text in TEXTS.items()
        for m in PYTHON_EXAMPLE.finditer(text)
    ]
    assert found, "no <!-- doc-test --> python block in README.md or docs/"
    return found


EXAMPLES = python_examples()


def normalized(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


# A page's examples run in one namespace, in page order, as a reader runs them one after the other (a later
# block may use what an earlier one defined).
NAMESPACES: dict[str, dict] = {}


def run_python(code: str, spark, page: str = "README.md") -> str:
    out = io.StringIO()
    namespace = NAMESPACES.setdefault(page, {"__name__": "readme"})
    namespace["spark"] = spark
    with contextlib.redirect_stdout(out):
        exec(compile(code, page, "exec"), namespace)
    return out.getvalue()


# The JetStream guide's examples read a live server: this one, at the address the page shows.
NATS_URL = "nats://127.0.0.1:4222"


@pytest.fixture(scope="module")
def nats_docs_server():
    """The server docs/guides/read-jetstream.md talks to: stream HISTORY holds 1,200 orders published before the
    mapping existed; then the server restarts with its mapping (target/readme/nats/server.conf, which the page
    reads) and stream ORDERS, which stores the mapped subjects."""
    from jetstream import JetStreamServer, nats_server_binary

    if nats_server_binary() is None:
        pytest.skip("no nats-server binary")
    with JetStreamServer(binary=nats_server_binary()) as server:
        server.create_stream("HISTORY", ["orders.*.*"])
        orders = [
            (f"orders.{['eu', 'us', 'ap'][i % 3]}.c{i % 40}", f'{{"order": {i}}}'.encode(), None) for i in range(1200)
        ]
        server.publish("HISTORY", orders)
        server.stop()
        with open(server.config, "a", encoding="utf-8") as f:
            f.write('mappings { "orders.*.*": "orders.{{partition(4,2)}}.$1.$2" }\n')
        os.makedirs(ROOT / "target" / "readme" / "nats", exist_ok=True)
        with open(server.config, encoding="utf-8") as f, open(ROOT / "target/readme/nats/server.conf", "w") as out:
            out.write(f.read())
        server.start()
        server.create_stream("ORDERS", ["orders.*.*.*"])
        yield server


@pytest.mark.parametrize("index", range(len(EXAMPLES)), ids=[f"{p}-{i}" for i, (p, _, _) in enumerate(EXAMPLES)])
def test_python_example_prints_what_the_readme_shows(spark, index, request):
    page, code, shown = EXAMPLES[index]
    if page == "docs/guides/read-jetstream.md":
        code = code.replace(NATS_URL, request.getfixturevalue("nats_docs_server").url)
    assert normalized(run_python(code, spark, page)) == normalized(shown)


def test_the_pictures_the_readme_shows_are_report_charts():
    # Each picture is a report's chart (Report.chart: 10 x 4.2 inches at 100 dpi), drawn by the example
    # just above it, which writes the same picture to target/readme/<name>.png when it runs.
    names = set()
    for page, text in TEXTS.items():
        for path, name in re.findall(r"!\[[^\]]*\]\(((?:\.\./)*(?:docs/)?images/(\w+)\.png)\)", text):
            names.add(name)
            png = (page.parent / path).resolve().read_bytes()
            assert png[:8] == b"\x89PNG\r\n\x1a\n", path
            assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (1000, 420), path
            before = text[: text.index(f"]({path})")]
            assert before.rindex(f'.chart("target/readme/{name}.png")') > before.rindex("<!-- doc-test -->"), path
    assert names >= {"rule_coverage", "config_diff", "partition_balance", "canary_check"}


def test_the_spark_sql_shell_line_works_with_the_jar_alone(tmp_path):
    import pyspark

    import subjxform

    found = [m for text in TEXTS.values() for m in SQL_EXAMPLE.finditer(text)]
    assert found, "no <!-- doc-test: spark-sql --> block in README.md or docs/"
    for example in found:
        command, sql, shown = example.groups()
        assert command == 'spark-sql --jars "$(python -m subjxform jar)"'
        spark_home = Path(pyspark.__file__).parent
        script = tmp_path / "example.sql"
        script.write_text(sql, encoding="utf-8")
        run = subprocess.run(
            [
                str(spark_home / "bin" / "spark-sql"),
                "--jars",
                subjxform.jar_path(),
                "--master",
                "local[1]",
                "--conf",
                "spark.ui.enabled=false",
                "--conf",
                f"spark.sql.warehouse.dir={tmp_path / 'warehouse'}",
                "--conf",
                f"spark.driver.extraJavaOptions=-Dderby.system.home={tmp_path}",
                "-f",
                str(script),
            ],
            cwd=tmp_path,
            env={**os.environ, "SPARK_HOME": str(spark_home)},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        assert normalized(run.stdout) == normalized(shown)


def test_the_readme_installs_subjxform_by_name_only_where_it_says_a_release_gives_it():
    """No release is published yet, so nothing of subjxform is on PyPI: `pip install subjxform` (or an extra
    of it) by name may appear only in the paragraph that says what a release will publish; the install
    lines use the wheel that the README's one build command makes (the command tests/test_packaging.py runs)."""
    assert "pip wheel --no-deps -w dist ." in README
    for text in TEXTS.values():
        for m in re.finditer(r"pip\s+install\s+['\"]?subjxform\b", text):
            paragraph = text[text.rfind("\n\n", 0, m.start()) : text.find("\n\n", m.end())]
            assert "What a release will publish" in paragraph, paragraph
        assert not re.search(r"--additional-python-modules\s+subjxform\b|`subjxform` as a PyPI", text)


def test_the_docs_site_builds_strict(tmp_path):
    """`mkdocs build --strict`: a broken link or anchor, a page left out of the nav, a SQL function without
    its reference entry or a CLI command whose --help fails is an error."""
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # as scripts/docs.sh: Material's end-of-life notice
    )
    assert run.returncode == 0, run.stderr[-4000:]
    reference = (tmp_path / "site" / "reference" / "sql-functions" / "index.html").read_text(encoding="utf-8")
    assert "DESCRIBE FUNCTION EXTENDED" in reference and "shipments.42.eu" in reference
    # The site's search finds the Connect guide by what a Connect user types.
    import json

    index = json.loads((tmp_path / "site" / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    connect = " ".join(d["title"] + " " + d["text"] for d in index if d["location"].startswith("guides/spark-connect/"))
    for words in ("Spark Connect", "SparkConnectServer", ".remote(", "connect-server"):
        assert words in connect, words


API_MODULES = [
    "functions",
    "session",
    "streams",
    "accounts",
    "configs",
    "mappings",
    "scopes",
    "reports",
    "reports.canary",
    "portable",
]


@pytest.mark.parametrize("module", API_MODULES)
def test_the_api_reference_examples_that_need_no_session_are_true(module):
    # The Python API page is the docstrings: their examples that need no Spark session run here (the
    # others are marked `doctest: +SKIP` and shown as they are written).
    import doctest
    import importlib

    failed, _ = doctest.testmod(importlib.import_module(f"subjxform.{module}"), optionflags=doctest.ELLIPSIS)
    assert failed == 0


@pytest.mark.parametrize("command", ["mapping", "validate"])
def test_the_jvm_commands_help_the_site_reads_from_the_sources_is_what_they_print(command):
    # The pages' generated parts are written before any jar (scripts/docs_reference.py): they read these usage
    # texts from the Scala sources, which must be what the commands print.
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from docs_reference import jvm_usage
    finally:
        sys.path.pop(0)
    run = subprocess.run(
        [sys.executable, "-m", "subjxform", command, "--help"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.rstrip("\n") == jvm_usage(command).rstrip("\n")


def test_the_reference_pages_generated_parts_are_current():
    # The signatures a reader sees on the forge are the code's: scripts/docs_reference.py wrote them, and writes
    # nothing new now.
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "docs_reference.py"), "--check"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_example_is_marked_the_old_way():
    # `<!-- readme-test -->` was the marker before the docs site: a block marked so would not run at all.
    for page, text in TEXTS.items():
        assert "<!-- readme-test" not in text, page


def test_the_readme_links_only_to_files_that_exist():
    # mkdocs --strict checks the site's links; the README is not part of the site.
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_the_readme_and_the_docs_link_nothing_outside_the_repository():
    # The behaviour contract outside the repository (../shared/SPEC.md) is a dead link in a clone: the
    # deliberate differences are docs/concepts/differences.md.
    for page, text in TEXTS.items():
        assert "shared/SPEC" not in text and "SPEC.md" not in text, page


if __name__ == "__main__":
    from pyspark.sql import SparkSession

    import subjxform

    wanted = set(sys.argv[1:])
    session = subjxform.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    for page, code, _ in EXAMPLES:
        if not wanted or page in wanted:
            sys.stdout.write(f"=== {page}\n" + run_python(code, session, page) + "\n---\n")
