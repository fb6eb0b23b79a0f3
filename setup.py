"""Builds subjxform.jar into the package when it is missing, so `pip install .` from a source
checkout ships a working jar (everything else is in pyproject.toml)."""

import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
JAR = ROOT / "python" / "src" / "subjxform" / "jars" / "subjxform.jar"


class BuildPyWithJar(build_py):
    def run(self):
        if not JAR.is_file() and (ROOT / "scripts" / "sbt").is_file():
            subprocess.run(["bash", str(ROOT / "scripts" / "sbt"), "jar"], check=True, cwd=ROOT)
        super().run()


setup(cmdclass={"build_py": BuildPyWithJar})
