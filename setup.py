"""Builds the Spark lines' jars into the package when none is there, so that `pip install .` from a
source checkout ships working jars (everything else is in pyproject.toml)."""

import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
JARS = ROOT / "python" / "src" / "subjxform" / "jars"


class BuildPyWithJars(build_py):
    def run(self):
        if not any(JARS.glob("subjxform-spark-*.jar")) and (ROOT / "scripts" / "build-jars.sh").is_file():
            subprocess.run(["bash", str(ROOT / "scripts" / "build-jars.sh")], check=True, cwd=ROOT)
        super().run()


setup(cmdclass={"build_py": BuildPyWithJars})
