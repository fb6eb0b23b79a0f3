"""Builds the Spark lines' jars into the package when none is there, so that `pip install .` from a
source checkout ships working jars (everything else is in pyproject.toml)."""

import os
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
JARS = ROOT / "python" / "src" / "subjxform" / "jars"


class BuildPyWithJars(build_py):
    def run(self):
        # SUBJXFORM_NO_JAR_BUILD: scripts/setup.sh builds the jars beside the editable install
        if (
            not any(JARS.glob("subjxform-spark-*.jar"))
            and (ROOT / "scripts" / "build-jars.sh").is_file()
            and not os.environ.get("SUBJXFORM_NO_JAR_BUILD")
        ):
            subprocess.run(["bash", str(ROOT / "scripts" / "build-jars.sh")], check=True, cwd=ROOT)
        super().run()


setup(cmdclass={"build_py": BuildPyWithJars})
