"""docs/guides/consumer-groups.md's examples are true: each block marked ``<!-- readme-test -->`` runs and
prints the ``text`` block that follows it (as tests/test_readme.py checks README's)."""

from __future__ import annotations

from conftest import ROOT, needs_jar
from test_readme import PYTHON_EXAMPLE, normalized, run_python

GUIDE = (ROOT / "docs" / "guides" / "consumer-groups.md").read_text(encoding="utf-8")
EXAMPLES = [(m.group(1), m.group(2) or "") for m in PYTHON_EXAMPLE.finditer(GUIDE)]


@needs_jar
def test_the_guide_has_examples_and_each_prints_what_it_shows(spark):
    assert len(EXAMPLES) == 3
    first = EXAMPLES[0][0]  # the later examples use its config and DataFrame, as a reader runs them in turn
    for i, (code, shown) in enumerate(EXAMPLES):
        assert normalized(run_python(first + code if i else code, spark)).endswith(normalized(shown))
