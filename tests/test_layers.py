"""The layers of docs/concepts/architecture.md, checked on the source: which module may import which.

Python: every import of a subjxform module (at the top or inside a function) must go down or across its
layer, never up. The JVM: the engine (subjxform.engine) reads no configuration (subjxform.config) and neither uses
Spark or the command line; the command line no Spark.
No Spark, no JVM: this reads files (well under a second).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "src" / "subjxform"

# Layer of each module, lowest first; a module may import modules of its own layer or a lower one.
GRAMMAR = 0  # the engine and config readers ported to plain Python: no pyspark, nothing else of subjxform
BASE = 1  # finding the jar, reading config files, version shims
PATHS = 2  # the two ways to compute: the jar's SQL functions, and portable SQL of Spark's built-ins
OPERATIONS = 3  # streams, accounts, scopes, reports, consumer groups, the demo: built on the paths
COMMAND_LINE = 4

# The grammar mirrors jvm/core: its engine's modules (subjxform.engine's twins) read none of its config
# readers' (subjxform.config's twins), as on the JVM.
GRAMMAR_ENGINE = {
    "grammar.go_quote",
    "grammar.java_text",
    "grammar.server_version",
    "grammar.subjects",
    "grammar.destination_syntax",
    "grammar.account_functions",
    "grammar.subject_transform",
    "grammar.keyed_draw",
}
GRAMMAR_CONFIG = {
    "grammar.go_bytes",
    "grammar.conf_value",
    "grammar.conf_lexer",
    "grammar.conf_scalars",
    "grammar.conf_reader",
    "grammar.conf_syntax",
    "grammar.mapping_table",
    "grammar.accounts",
    "grammar.filter_transforms",
    "grammar.consumer_group",
}

LAYERS = {
    "grammar": GRAMMAR,
    **{m: GRAMMAR for m in GRAMMAR_ENGINE | GRAMMAR_CONFIG},
    "_compat": BASE,
    "arguments": BASE,
    "session": BASE,
    "configs": BASE,
    "functions": PATHS,
    "mappings": PATHS,
    "portable": PATHS,
    "portable._expr": PATHS,
    "portable._build": PATHS,
    "portable._map_build": PATHS,
    "portable.groups": PATHS,
    "streams": OPERATIONS,
    "accounts": OPERATIONS,
    "scopes": OPERATIONS,
    "reports": OPERATIONS,
    "reports._render": OPERATIONS,
    "reports._query": OPERATIONS,
    "reports.coverage": OPERATIONS,
    "reports.diff": OPERATIONS,
    "reports.balance": OPERATIONS,
    "reports.canary": OPERATIONS,
    "reports.upgrade": OPERATIONS,
    "groups": OPERATIONS,
    "demo": OPERATIONS,
    "cli": COMMAND_LINE,
    "cli.sql": COMMAND_LINE,
    "cli.report": COMMAND_LINE,
    "cli.group": COMMAND_LINE,
    "cli.connect": COMMAND_LINE,
    "__main__": COMMAND_LINE,
}

# The two computing paths do not use each other: the jar path needs no portable SQL, and the portable
# path must run where the jar is absent.
JAR_PATH = {"functions", "mappings"}
PORTABLE_BUILDERS = {
    "portable",
    "portable._expr",
    "portable._build",
    "portable._map_build",
    "portable.groups",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if module_name(p)}


def imported(path: Path, name: str) -> set[str]:
    """The subjxform modules `path` imports, anywhere in it, as names relative to the package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    known = modules()

    def add(target: str) -> None:
        while target and target not in known:  # `from x import function`: the module is x
            target = target.rpartition(".")[0]
        if target:
            found.add(target)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("subjxform."):
                    add(alias.name.removeprefix("subjxform."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join([*base, node.module] if node.module else base)
            elif node.module and (node.module == "subjxform" or node.module.startswith("subjxform.")):
                target = node.module.removeprefix("subjxform").lstrip(".")
            else:
                continue
            if target and node.module:  # `from . import _build` imports _build, not the package's face
                add(target)
            for alias in node.names:  # `from subjxform import portable`, `from . import _build`
                add(f"{target}.{alias.name}" if target else alias.name)
    found.discard(name)
    return found


def test_every_module_has_a_layer():
    assert sorted(set(modules()) - set(LAYERS)) == [], "a new module: give it a layer here and in the architecture page"
    assert sorted(set(LAYERS) - set(modules())) == [], "a module in LAYERS no longer exists"


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_imports_go_down_or_across(name):
    path = modules()[name]
    up = sorted(t for t in imported(path, name) if LAYERS.get(t, COMMAND_LINE) > LAYERS[name])
    assert up == [], f"{name} (layer {LAYERS[name]}) imports a higher layer: {up}"
    if name in JAR_PATH:
        assert not imported(path, name) & PORTABLE_BUILDERS, f"{name}: the jar path uses the portable builders"
    if name in PORTABLE_BUILDERS:
        assert not imported(path, name) & JAR_PATH, f"{name}: the portable path uses the jar's functions"


def test_the_grammars_engine_reads_no_configuration():
    for name in sorted(GRAMMAR_ENGINE):
        config = sorted(imported(modules()[name], name) & GRAMMAR_CONFIG)
        assert config == [], f"{name} (the engine's twin) imports config readers: {config}"


def test_the_grammar_imports_no_pyspark():
    for name, layer in LAYERS.items():
        if layer == GRAMMAR:
            text = modules()[name].read_text(encoding="utf-8")
            assert not re.search(r"^\s*(from|import) pyspark", text, re.MULTILINE), f"{name} imports pyspark"


def test_the_checker_sees_an_upward_import(tmp_path):
    """The checker itself: imports from higher layers, at the top or inside a function, absolute or relative."""
    fake = tmp_path / "functions.py"
    fake.write_text("def f():\n    from subjxform.reports import Report\n\nfrom .streams import stream_messages\n")
    assert imported(fake, "functions") == {"reports", "streams"}


JVM = ROOT / "jvm"


def scala_sources(folder: str) -> list[Path]:
    return sorted((JVM / folder).rglob("*.scala")) + sorted((JVM / folder).rglob("*.java"))


def test_the_engine_uses_no_spark_and_no_command_line():
    sources = [p for p in scala_sources("core/src/main") if "/cli/" not in p.as_posix()]
    assert sources, "no engine sources found"
    for p in sources:
        text = p.read_text(encoding="utf-8")
        assert "org.apache.spark" not in text, f"{p.relative_to(ROOT)} uses Spark"
        assert not re.search(r"^import subjxform\.(cli|spark)", text, re.MULTILINE), (
            f"{p.relative_to(ROOT)} imports a layer above"
        )


def test_the_engine_reads_no_configuration():
    # subjxform.engine (transforms, subjects, draws, server versions) sits below subjxform.config (the
    # readers of mapping tables, streams, accounts, consumer groups): one sbt module holds both, so only
    # this test keeps a reference from going up.
    engine = scala_sources("core/src/main/scala/subjxform/engine") + scala_sources(
        "core/src/main/java/subjxform/engine"
    )
    assert engine, "no engine sources found"
    for p in engine:
        code = re.sub(r"//[^\n]*|/\*.*?\*/", "", p.read_text(encoding="utf-8"), flags=re.DOTALL)
        assert "subjxform.config" not in code, f"{p.relative_to(ROOT)} uses the config readers"


def test_the_command_line_uses_no_spark():
    for p in scala_sources("core/src/main/scala/subjxform/cli"):
        assert "org.apache.spark" not in p.read_text(encoding="utf-8"), f"{p.relative_to(ROOT)} uses Spark"
