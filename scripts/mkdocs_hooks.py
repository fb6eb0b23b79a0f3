"""MkDocs hooks (mkdocs.yml `hooks:`). The reference pages' generated parts (SQL function entries, Scala
overloads, `--help` texts, Python signatures) are written into the pages by scripts/docs_reference.py, so that the
forge shows them too; the build fails on a page whose parts are not current, so they cannot drift from the code.
On the site the Python signature lists give way to mkdocstrings' whole entries. Every page's footer names the
version, read from version.txt as every artifact's is, and the licence.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import docs_reference  # noqa: E402

PYTHON_PART = re.compile(r"<!-- python-signatures: [\w.]+ -->\n.*?<!-- /python-signatures -->\n", re.S)


def footer() -> str:
    version = (ROOT / "version.txt").read_text(encoding="utf-8").strip()
    return f"subjxform {version} · Apache License 2.0"


def on_config(config):
    config["copyright"] = footer()
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    try:
        if page.file.src_uri == docs_reference.SQL_PAGE:
            docs_reference.check_sql_page(markdown)
        if docs_reference.generated(markdown) != markdown:
            raise PluginError(
                f"{page.file.src_uri}: its generated parts are not current: python3 scripts/docs_reference.py"
            )
    except ValueError as e:
        raise PluginError(str(e)) from e
    return PYTHON_PART.sub("", markdown)
