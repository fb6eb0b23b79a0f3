"""The README's examples are true: each block marked ``<!-- readme-test -->`` runs, and what it prints
must be the ``text`` block that follows it. The Spark SQL example runs in the real ``spark-sql`` shell.

``python tests/test_readme.py`` prints what each block prints now (to compare by eye when editing).
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
README = (ROOT / "README.md").read_text(encoding="utf-8")

PYTHON_EXAMPLE = re.compile(r"<!-- readme-test -->\n```python\n(.*?)```\n(?:```text\n(.*?)```\n)?", re.S)
SQL_EXAMPLE = re.compile(
    r"<!-- readme-test: spark-sql -->\n```bash\n(spark-sql [^\n]*)\n```\n```sql\n(.*?)```\n```text\n(.*?)```\n", re.S
)


def python_examples() -> list[tuple[str, str]]:
    found = [(m.group(1), m.group(2) or "") for m in PYTHON_EXAMPLE.finditer(README)]
    assert found, "README has no <!-- readme-test --> python block"
    return found


def normalized(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def run_python(code: str, spark) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"spark": spark, "__name__": "readme"})
    return out.getvalue()


@pytest.mark.parametrize("index", range(len(PYTHON_EXAMPLE.findall(README))))
def test_python_example_prints_what_the_readme_shows(spark, index):
    code, shown = python_examples()[index]
    assert normalized(run_python(code, spark)) == normalized(shown)


def test_the_pictures_the_readme_shows_are_report_charts():
    # Each picture is a report's chart (Report.chart: 10 x 4.2 inches at 100 dpi), drawn by the example
    # just above it, which writes the same picture to target/readme/<name>.png when it runs.
    shown = re.findall(r"!\[[^\]]*\]\((docs/images/(\w+)\.png)\)", README)
    assert {name for _, name in shown} >= {"rule_coverage", "config_diff", "partition_balance", "canary_check"}
    for path, name in shown:
        png = (ROOT / path).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n", path
        assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (1000, 420), path
        before = README[: README.index(f"]({path})")]
        assert before.rindex(f'.chart("target/readme/{name}.png")') > before.rindex("<!-- readme-test -->"), path


def test_the_spark_sql_shell_line_works_with_the_jar_alone(tmp_path):
    import pyspark

    import subjxform

    found = SQL_EXAMPLE.search(README)
    assert found, "README has no <!-- readme-test: spark-sql --> block"
    command, sql, shown = found.groups()
    assert command == 'spark-sql --jars "$(python -m subjxform jar)"'
    spark_home = Path(pyspark.__file__).parent
    script = tmp_path / "example.sql"
    script.write_text(sql, encoding="utf-8")
    run = subprocess.run(
        [str(spark_home / "bin" / "spark-sql"), "--jars", subjxform.jar_path(), "--master", "local[1]",
         "--conf", "spark.ui.enabled=false", "--conf", f"spark.sql.warehouse.dir={tmp_path / 'warehouse'}",
         "--conf", f"spark.driver.extraJavaOptions=-Dderby.system.home={tmp_path}",
         "-f", str(script)],
        cwd=tmp_path, env={**os.environ, "SPARK_HOME": str(spark_home)},
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert normalized(run.stdout) == normalized(shown)


if __name__ == "__main__":
    from pyspark.sql import SparkSession

    import subjxform

    session = subjxform.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    for code, _ in python_examples():
        sys.stdout.write(run_python(code, session) + "\n---\n")


def test_the_readme_installs_subjxform_by_name_only_where_it_says_a_release_gives_it():
    """No release is published yet, so nothing of subjxform is on PyPI: `pip install subjxform` (or an extra
    of it) by name may appear only in the paragraph that says what a release will publish; the install
    lines use the wheel that the README's one build command makes (the command tests/test_packaging.py runs)."""
    assert "pip wheel --no-deps -w dist ." in README
    for m in re.finditer(r"pip\s+install\s+['\"]?subjxform\b", README):
        paragraph = README[README.rfind("\n\n", 0, m.start()): README.find("\n\n", m.end())]
        assert "What a release will publish" in paragraph, paragraph
    assert not re.search(r"--additional-python-modules\s+subjxform\b|`subjxform` as a PyPI", README)
