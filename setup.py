"""What pyproject.toml cannot say statically:

- the Spark lines' jars are built into the package when none is there, so that `pip install .` from a source
  checkout ships working jars;
- the long description is README.md with its relative links made absolute (a package index shows the README
  alone, where `docs/getting-started.md` points nowhere): a page of the docs becomes its page on the docs
  site, any other file its copy in the source repository at the release's tag;
- the project URLs, from the same two addresses.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
JARS = ROOT / "python" / "src" / "subjxform" / "jars"

SOURCE_URL = "https://github.com/subjxform/subjxform"
DOCS_URL = "https://subjxform.github.io/subjxform/"

# A Markdown link's target: ](target) — the text between the brackets is left as it is.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def absolute_link(target: str, version: str) -> str:
    """Where a README link leads from a package index: docs/x/y.md#a -> DOCS_URL x/y/#a (the docs site's URL of
    that page, as MkDocs builds it), another file -> the source repository's copy at tag v<version>."""
    if "://" in target or target.startswith(("#", "mailto:")):
        return target
    path, _, anchor = target.partition("#")
    anchor = f"#{anchor}" if anchor else ""
    if path.startswith("docs/") and path.endswith(".md"):
        page = path[len("docs/") : -len(".md")]
        page = "" if page == "index" else page.removesuffix("/index") + "/"
        return f"{DOCS_URL}{page}{anchor}"
    return f"{SOURCE_URL}/blob/v{version}/{path}{anchor}"


def long_description(version: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return LINK.sub(lambda m: f"]({absolute_link(m.group(1), version)})", readme)


def build_jars_if_missing() -> None:
    """Every line's jar into the package, when a source checkout has none yet (a clean clone): the wheel and the
    sdist both carry them, so a wheel built from either needs no build tools. An sdist has no scripts/ and
    carries its jars already. SUBJXFORM_NO_JAR_BUILD: scripts/setup.sh builds the jars beside the editable
    install."""
    if (
        not any(JARS.glob("subjxform-spark-*.jar"))
        and (ROOT / "scripts" / "build-jars.sh").is_file()
        and not os.environ.get("SUBJXFORM_NO_JAR_BUILD")
    ):
        # sys.executable: the build's own interpreter, whose environment has pip (a build requirement in
        # pyproject.toml: inside pip's build isolation the python3 on PATH has no pip of its own otherwise)
        env = {**os.environ, "PYTHON": sys.executable}
        subprocess.run(["bash", str(ROOT / "scripts" / "build-jars.sh")], check=True, cwd=ROOT, env=env)


class BuildPyWithJars(build_py):
    def run(self):
        build_jars_if_missing()
        super().run()


class SdistWithJars(sdist):
    # (setuptools gathers the package data without running build_py: the jars must be there first)
    def run(self):
        build_jars_if_missing()
        super().run()


if __name__ == "__main__":
    VERSION = (ROOT / "version.txt").read_text(encoding="utf-8").strip()
    setup(
        cmdclass={"build_py": BuildPyWithJars, "sdist": SdistWithJars},
        long_description=long_description(VERSION),
        long_description_content_type="text/markdown",
        project_urls={
            "Documentation": DOCS_URL,
            "Source": SOURCE_URL,
            "Changelog": f"{SOURCE_URL}/blob/main/CHANGELOG.md",
            "Issues": f"{SOURCE_URL}/issues",
        },
    )
