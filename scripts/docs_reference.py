"""The reference pages' generated parts, written into the pages themselves (docs/reference/*.md), so that the
signatures read on the forge are the code's, and checked to be current (tests/test_docs.py, and the site build:
scripts/mkdocs_hooks.py fails on a page that is not). Each part sits between its opening marker and its end
marker, `<!-- /KIND -->`, and is what this script writes there:

- `<!-- sql-function: NAME -->`: NAME's entry, from the Scala sources: the @ExpressionDescription of the class
  SubjxformExtensions registers under NAME (what `DESCRIBE FUNCTION EXTENDED NAME` prints: usage, arguments,
  examples). A registered function without such a marker on the SQL reference page, or a marker naming no
  function, is an error.
- `<!-- scala-functions -->`: the public overloads of `subjxform.spark.functions`, from functions.scala, each with
  the scaladoc line above it.
- `<!-- cli-help: subjxform [COMMAND] -->`: what `subjxform [COMMAND] --help` prints (run from this tree's
  python/src; the JVM commands' usage texts read from the Scala sources, so that no jar is needed:
  tests/test_docs.py checks they are what the commands print).
- `<!-- python-signatures: MODULE -->`: the public functions and classes of a Python module, each with its
  signature and the first line of its docstring (the site shows the whole docstrings, with mkdocstrings).

    python3 scripts/docs_reference.py           # rewrites the pages' generated parts
    python3 scripts/docs_reference.py --check   # exit 1, naming the pages whose parts are not current
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCALA = ROOT / "jvm" / "spark" / "src" / "main" / "scala" / "subjxform" / "spark"
SQL_PAGE = "reference/sql-functions.md"

SQL_MARKER = re.compile(r"<!-- sql-function: (\w+) -->")
SCALA_MARKER = "<!-- scala-functions -->"
CLI_MARKER = re.compile(r"<!-- cli-help: (subjxform(?: [\w-]+)*) -->")


@cache
def registered_functions() -> dict[str, str]:
    """SQL name -> Scala class, as SubjxformFunctions.all registers them."""
    source = (SCALA / "SubjxformExtensions.scala").read_text(encoding="utf-8")
    found = dict((name, cls) for cls, name in re.findall(r'describe\[(\w+)\]\("(\w+)"', source))
    if not found:
        raise ValueError('no describe[...]("name") found in SubjxformExtensions.scala')
    return found


@cache
def descriptions() -> dict[str, dict[str, str]]:
    """Scala class -> its @ExpressionDescription's fields (usage, arguments, examples, since)."""
    out = {}
    for path in SCALA.glob("*.scala"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"@ExpressionDescription\((.*?)\)\s*(?:final\s+)?case class (\w+)", text, re.S):
            body, cls = m.groups()
            fields = dict(re.findall(r'(\w+)\s*=\s*"""(.*?)"""', body, re.S))
            fields.update(re.findall(r'(\w+)\s*=\s*"([^"]*)"', re.sub(r'"""(.*?)"""', "", body, flags=re.S)))
            out[cls] = fields
    return out


def _unwrap(text: str) -> str:
    """One line of prose, with `<` outside code spans escaped: `ARRAY<STRUCT<src: ...>>` is a type, not HTML."""
    line = " ".join(line.strip() for line in text.strip().splitlines())
    parts = re.split(r"(`[^`]*`)", line)
    return "".join(p if p.startswith("`") else p.replace("<", "&lt;") for p in parts)


def sql_function_entry(name: str) -> str:
    cls = registered_functions().get(name)
    if cls is None:
        raise ValueError(f"{SQL_PAGE}: <!-- sql-function: {name} --> names no registered function")
    d = descriptions().get(cls)
    if d is None or "usage" not in d:
        raise ValueError(f"{cls} ({name}) has no @ExpressionDescription usage")
    usage = d["usage"].replace("_FUNC_", name)
    signature, _, summary = _unwrap(usage).partition(" - ")
    lines = [f"```sql\n{signature}\n```", "", summary, ""]
    arguments = re.split(r"\n\s*\* ", "\n" + d.get("arguments", "").replace("Arguments:", "").strip())
    items = [a for a in (_unwrap(a) for a in arguments) if a]
    if items:
        lines += ["**Arguments**", ""]
        for item in items:
            arg, _, what = item.partition(" - ")
            names = ", ".join(f"`{a.strip()}`" for a in arg.split(","))
            lines.append(f"- {names}: {what.replace('_FUNC_', name)}")
        lines.append("")
    examples = re.findall(r">\s*(SELECT .*?;)\s*\n\s*(.*)", d.get("examples", ""))
    if examples:
        lines += ["**Examples** (from `DESCRIBE FUNCTION EXTENDED`; a test runs each one)", "", "```sql"]
        for query, result in examples:
            lines += [query.replace("_FUNC_", name), f"-- {result.strip()}"]
        lines += ["```", ""]
    if d.get("since"):
        lines.append(f"Since {d['since']}.")
    return "\n".join(lines)


def scala_functions() -> str:
    """A table of the public overloads in `object functions`, in source order, with their scaladoc."""
    source = (SCALA / "functions.scala").read_text(encoding="utf-8")
    body = source[source.index("object functions") :]
    rows = []
    for doc, signature in re.findall(r"(?:/\*\*((?:(?!\*/).)*)\*/\s*)?\n\s*def (\w+\([^)]*\)): Column", body, re.S):
        what = " ".join(line.strip().lstrip("*").strip() for line in (doc or "").splitlines()).strip()
        what = re.sub(r"\[\[(\w+)\]\]", r"`\1`", what).replace("|", "\\|")  # scaladoc links, table cells
        rows.append(f"| `{signature}` | {what} |")
    if not rows:
        raise ValueError("no public def found in functions.scala")
    return "\n".join(["| overload | note |", "| --- | --- |", *rows])


CLI_SCALA = ROOT / "jvm" / "core" / "src" / "main" / "scala" / "subjxform" / "cli"
# The JVM commands' --help: (the Scala file, the val) whose text the command prints.
JVM_USAGE = {"mapping": ("Main.scala", "MappingUsage"), "validate": ("Validate.scala", "Usage")}


def jvm_usage(command: str) -> str:
    """The usage text a JVM command prints for --help: its `val NAME: String = \"\"\"...\"\"\".stripMargin`."""
    file, name = JVM_USAGE[command]
    source = (CLI_SCALA / file).read_text(encoding="utf-8")
    found = re.search(rf'val {name}: String =\s*"""(.*?)"""\.stripMargin', source, re.S)
    if found is None:
        raise ValueError(f'no `val {name}: String = """...""".stripMargin` in {file}')
    return "\n".join(re.sub(r"^\s*\|", "", line) for line in found.group(1).splitlines())


@cache
def cli_help(command: str) -> str:
    """What `command --help` prints, as a console block; a command whose help fails fails the build."""
    words = command.split()
    if len(words) == 2 and words[1] in JVM_USAGE:
        return f"```text\n$ {command} --help\n{jvm_usage(words[1]).rstrip()}\n```"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "python" / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    run = subprocess.run(
        [sys.executable, "-m", *command.split(), "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    if run.returncode != 0 or not run.stdout.strip():
        raise ValueError(f"`{command} --help` exited {run.returncode}: {(run.stderr or run.stdout).strip()[-500:]}")
    return f"```text\n$ {command} --help\n{run.stdout.rstrip()}\n```"


PYTHON_MARKER = re.compile(r"<!-- python-signatures: ([\w.]+) -->")


def _signature(sig: inspect.Signature) -> str:
    """A signature as written in the source: annotations as their text (the modules postpone them), defaults
    as Python writes them."""

    def text(annotation) -> str:
        return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)

    params = []
    for p in sig.parameters.values():
        s = ("*" if p.kind == p.VAR_POSITIONAL else "**" if p.kind == p.VAR_KEYWORD else "") + p.name
        if p.annotation is not p.empty:
            s += f": {text(p.annotation)}"
        if p.default is not p.empty:
            s += f" = {p.default!r}" if p.annotation is not p.empty else f"={p.default!r}"
        params.append(s)
    out = f"({', '.join(params)})"
    return out + (f" -> {text(sig.return_annotation)}" if sig.return_annotation is not sig.empty else "")


def python_signatures(module_name: str) -> str:
    """The module's public functions and classes (its ``__all__``, else what it defines without a leading
    underscore), each as ``name(signature)`` with its docstring's first line, in source order."""
    sys.path.insert(0, str(ROOT / "python" / "src"))
    try:
        import importlib

        module = importlib.import_module(module_name)
    finally:
        sys.path.pop(0)
    names = getattr(module, "__all__", None) or [
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == module_name
    ]
    rows = []
    for name in names:
        value = getattr(module, name)
        if not (inspect.isfunction(value) or inspect.isclass(value)):
            continue
        try:
            signature = _signature(inspect.signature(value))
        except (TypeError, ValueError):
            signature = "(...)"
        doc = (inspect.getdoc(value) or "").split("\n\n")[0].replace("\n", " ").strip()
        kind = "class " if inspect.isclass(value) else ""
        rows.append(f"- `{kind}{name}{signature}`" + (f": {doc}" if doc else ""))
    if not rows:
        raise ValueError(f"{module_name}: no public function or class")
    return "\n".join(rows)


# Each kind of generated part: its opening marker (its argument, if any, in group 1) and what it holds.
PARTS = [
    ("sql-function", SQL_MARKER, lambda arg: sql_function_entry(arg)),
    ("scala-functions", re.compile(re.escape(SCALA_MARKER)), lambda arg: scala_functions()),
    ("cli-help", CLI_MARKER, lambda arg: cli_help(arg.strip())),
    ("python-signatures", PYTHON_MARKER, lambda arg: python_signatures(arg)),
]


def generated(markdown: str) -> str:
    """The page with every generated part as this script writes it (a part without its end marker gets one)."""
    for kind, marker, make in PARTS:
        pattern = re.compile(
            marker.pattern + r"\n(?:(?:(?!<!-- /" + kind + r" -->).)*?<!-- /" + kind + r" -->\n)?", re.S
        )

        def part(m, kind=kind, make=make):
            arg = m.group(1) if m.re.groups else None
            return f"{m.group(0).splitlines()[0]}\n{make(arg).rstrip()}\n<!-- /{kind} -->\n"

        markdown = pattern.sub(part, markdown)
    return markdown


PAGES = [ROOT / "docs" / "reference" / p for p in ("sql-functions.md", "scala-api.md", "cli.md", "python-api.md")]


def check_sql_page(markdown: str) -> None:
    """Every registered SQL function has its entry on the SQL reference page."""
    missing = sorted(set(registered_functions()) - set(SQL_MARKER.findall(markdown)))
    if missing:
        raise ValueError(f"{SQL_PAGE} has no <!-- sql-function: NAME --> for {', '.join(missing)}")


def stale_pages() -> list[Path]:
    out = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        if page.name == "sql-functions.md":
            check_sql_page(text)
        if generated(text) != text:
            out.append(page)
    return out


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        stale = stale_pages()
        for page in stale:
            print(f"{page.relative_to(ROOT)}: its generated parts are not current: python3 scripts/docs_reference.py")
        return 1 if stale else 0
    if argv:
        print("usage: docs_reference.py [--check]", file=sys.stderr)
        return 2
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        new = generated(text)
        if new != text:
            page.write_text(new, encoding="utf-8")
            print(f"wrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
