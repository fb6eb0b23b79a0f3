"""The wheel carries every Spark line's jar, requires no pyspark, has the version in version.txt and
the console script."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import ROOT

import subjxform
from subjxform.session import LINES, jar_name


def test_the_wheel_ships_every_lines_jar_and_the_command(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, timeout=600,
    )
    (wheel,) = tmp_path.glob("subjxform-*.whl")
    version = (ROOT / "version.txt").read_text().strip()
    assert wheel.name.startswith(f"subjxform-{version}-")
    jars = Path(subjxform.__file__).parent / "jars"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        for spark, scala in LINES:
            entry = f"subjxform/jars/{jar_name(spark, scala)}"
            assert entry in names, f"the wheel has no {entry}: build every line first (scripts/build-jars.sh)"
            assert z.read(entry) == (jars / jar_name(spark, scala)).read_bytes()
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        assert "subjxform = subjxform.cli:main" in z.read(entry_points).decode()
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    # pyspark only as an extra: installing the wheel never replaces a platform's pyspark.
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist: pyspark")]
    assert requires and all("extra ==" in r for r in requires), requires


def test_version_comes_from_version_txt():
    assert subjxform.__version__ == (ROOT / "version.txt").read_text().strip()
