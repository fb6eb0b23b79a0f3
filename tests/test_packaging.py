"""The wheel carries the jar, the version is the one in version.txt, the console script exists."""

from __future__ import annotations

import subprocess
import sys
import zipfile

from conftest import ROOT

import subjxform


def test_the_wheel_ships_the_jar_and_the_command(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    (wheel,) = tmp_path.glob("subjxform-*.whl")
    version = (ROOT / "version.txt").read_text().strip()
    assert wheel.name.startswith(f"subjxform-{version}-")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert "subjxform/jars/subjxform.jar" in names
        assert z.read("subjxform/jars/subjxform.jar") == open(subjxform.jar_path(), "rb").read()
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        assert "subjxform = subjxform.cli:main" in z.read(entry_points).decode()


def test_version_comes_from_version_txt():
    assert subjxform.__version__ == (ROOT / "version.txt").read_text().strip()
