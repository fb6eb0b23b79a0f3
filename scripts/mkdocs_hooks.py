"""MkDocs hooks (mkdocs.yml `hooks:`): the reference pages are filled in from the code when the site is built,
so they cannot drift from it.

- `<!-- sql-function: NAME -->` becomes NAME's entry, read from the Scala sources: the @ExpressionDescription
  of the class SubjxformExtensions registers under NAME (what `DESCRIBE FUNCTION EXTENDED NAME` prints:
  usage, arguments, examples). A registered function without such a marker on the SQL reference page, or a
  marker naming no function, fails the build.
- `<!-- scala-functions -->` becomes the list of `subjxform.spark.functions`' public overloads, read from
  functions.scala, each with the scaladoc line above it.
- `<!-- cli-help: subjxform [COMMAND] -->` becomes what `subjxform [COMMAND] --help` prints (run from this tree's
  python/src, so the argparse parsers are what is shown). The commands that run in the JVM (mapping, validate)
  print a usage text that is a constant of the Scala sources: it is read from there, so that the site builds from
  a fresh clone, before any jar is (tests/test_docs.py checks it is what the commands print).
- Every page's footer names the version, read from version.txt as every artifact's is, and the licence.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

from mkdocs.exceptions import PluginError

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
        raise PluginError('no describe[...]("name") found in SubjxformExtensions.scala')
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
        raise PluginError(f"{SQL_PAGE}: <!-- sql-function: {name} --> names no registered function")
    d = descriptions().get(cls)
    if d is None or "usage" not in d:
        raise PluginError(f"{cls} ({name}) has no @ExpressionDescription usage")
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
        raise PluginError("no public def found in functions.scala")
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
        raise PluginError(f'no `val {name}: String = """...""".stripMargin` in {file}')
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
        raise PluginError(f"`{command} --help` exited {run.returncode}: {(run.stderr or run.stdout).strip()[-500:]}")
    return f"```text\n$ {command} --help\n{run.stdout.rstrip()}\n```"


def footer() -> str:
    version = (ROOT / "version.txt").read_text(encoding="utf-8").strip()
    return f"subjxform {version} · Apache License 2.0"


def on_config(config):
    config["copyright"] = footer()
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri == SQL_PAGE:
        documented = set(SQL_MARKER.findall(markdown))
        missing = sorted(set(registered_functions()) - documented)
        if missing:
            raise PluginError(f"{SQL_PAGE} has no <!-- sql-function: NAME --> for {', '.join(missing)}")
    if SCALA_MARKER in markdown:
        markdown = markdown.replace(SCALA_MARKER, scala_functions())
    markdown = SQL_MARKER.sub(lambda m: sql_function_entry(m.group(1)), markdown)
    return CLI_MARKER.sub(lambda m: cli_help(m.group(1).strip()), markdown)
