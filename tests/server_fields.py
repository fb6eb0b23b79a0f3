"""The fields each nats-server line knows in the blocks `subjxform validate` reads (the top level, an
account, an export, an import and an import's account), read from that line's own server/opts.go: the
cases of each switch whose default reports "unknown field" (tests/conf_oracle `fields`, with Go's parser),
in the source of the release measured for the line (the Go module, as `go mod download` fetches it).
Writes jvm/core/src/main/scala/subjxform/config/ServerFields.scala, and ServerFieldTypes.scala: the Go type each
field is read as where its case starts with a bare type assertion (tests/conf_oracle `types`), another type being
the server's `interface conversion` panic; `--check` compares instead.
tests/test_validate_unknown_fields.py checks the result against each line's binary (`nats-server -t`).

    python3 tests/server_fields.py [--check]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORACLE = HERE / "conf_oracle"
OUT = HERE.parent / "jvm/core/src/main/scala/subjxform/config/ServerFields.scala"
TYPES_OUT = HERE.parent / "jvm/core/src/main/scala/subjxform/config/ServerFieldTypes.scala"
# The release measured for each line (scripts/nats-servers.sh, ServerVersion.scala).
RELEASES = {"2.10": "2.10.26", "2.11": "2.11.11", "2.12": "2.12.8", "2.14": "2.14.6", "2.15": "2.15.1"}
# Every release each line published (the release table's, grammar/server_version.py): a release whose lists differ
# from its line's is a row of its own (2.11.0 and 2.11.1 do not know default_sentinel).
sys.path.insert(0, str(HERE.parent / "python" / "src"))
from subjxform.grammar.server_version import PUBLISHED  # noqa: E402

BLOCKS = (
    "top",
    "account",
    "export",
    "import",
    "import_account",
    "authorization",
    "cluster",
    "gateway",
    "gateway_remote",
    "jetstream",
    "leafnodes",
    "leafnode_remote",
    "websocket",
    "mqtt",
    "tls",
    "user",
    "permissions",
    "subject_permission",
    "allow_responses",
    "auth_callout",
    "leaf_authorization",
    "leaf_user",
    "simple_authorization",
    "jetstream_limits",
    "jetstream_limits_batch",
    "jetstream_tpm",
    "account_jetstream",
    "account_limits",
)
# Blocks a line's opts.go may not have yet (JetStream's `tpm` from 2.11, its limits' `batch` from 2.12): no fields there.
LATER_BLOCKS = {"jetstream_limits_batch", "jetstream_tpm"}


def release_source(release: str, folder: str) -> Path:
    """The folder of nats-server's module at ``release`` (downloaded into Go's module cache)."""
    done = subprocess.run(
        ["go", "mod", "download", "-json", f"github.com/nats-io/nats-server/v2@v{release}"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(json.loads(done.stdout)["Dir"])


def scala(known: dict[str, dict[str, list[str]]], changes: dict[str, dict[str, tuple[list, list]]]) -> str:
    """The table, each distinct list written once (most lines share most of their lists)."""

    def names(fields: list[str]) -> str:
        words = [json.dumps(f) for f in fields]
        lines, line = [], "    "
        for w in words:
            if len(line) + len(w) + 2 > 118:
                lines.append(line.rstrip())
                line = "    "
            line += w + ", "
        lines.append(line.rstrip().rstrip(","))
        return "\n".join(lines)

    lists: dict[tuple, str] = {}  # a distinct list -> the name of its val
    vals = []
    previous: dict[str, tuple] = {}  # each block's last list: a newer line's is written as what changed
    for line, blocks in known.items():
        for b in BLOCKS:
            fields = tuple(blocks[b])
            if fields not in lists:
                lists[fields] = "".join(w.capitalize() for w in b.split("_")) + line.replace(".", "_")
                if b in previous:
                    added = sorted(set(fields) - set(previous[b]))
                    removed = sorted(set(previous[b]) - set(fields))
                    change = (f" ++ Set({', '.join(json.dumps(f) for f in added)})" if added else "") + (
                        f" -- Set({', '.join(json.dumps(f) for f in removed)})" if removed else ""
                    )
                    line_text = f"  private val {lists[fields]} = {lists[previous[b]]}{change}"
                    if len(line_text) > 120:  # the added names one per wrapped line, as scalafmt writes them
                        line_text = f"  private val {lists[fields]} = {lists[previous[b]]} ++ Set(\n{names(added)})" + (
                            f" -- Set({', '.join(json.dumps(f) for f in removed)})" if removed else ""
                        )
                    vals.append(line_text)
                else:
                    vals.append(
                        f"  private val {lists[fields]} = Set(\n{names(list(fields))})"
                        if fields
                        else f"  private val {lists[fields]} = Set.empty[String]"
                    )
                previous[b] = fields
    rows = []
    before: dict[str, tuple] = {}  # the line before's lists: a later line is written as the blocks whose list differs
    for line, blocks in known.items():
        pairs = [f'"{b}" -> {lists[tuple(blocks[b])]}' for b in BLOCKS if before.get(b) != tuple(blocks[b])]
        before = {b: tuple(blocks[b]) for b in BLOCKS}
        # pairs packed into lines of at most 120 characters (each with its comma), as scalafmt keeps them
        grouped = [""]
        for pair in pairs:
            joined = f"{grouped[-1]}, {pair}" if grouped[-1] else pair
            if grouped[-1] and len("      " + joined) + 2 > 120:
                grouped.append(pair)
            else:
                grouped[-1] = joined
        rows.append(f'    "{line}" -> Map(\n      ' + ",\n      ".join(grouped) + ")")
    body = ",\n".join(rows)
    val_text = "\n\n".join(vals)

    def names_set(fields) -> str:
        return "Set(" + ", ".join(json.dumps(f) for f in fields) + ")"

    change_rows = []
    for release, blocks in changes.items():
        pairs = [f'      "{b}" -> (({names_set(a)}, {names_set(r)}))' for b, (a, r) in blocks.items()]
        change_rows.append(f'    "{release}" -> Map(\n' + ",\n".join(pairs) + ")")
    change_body = ",\n".join(change_rows)
    return f"""package subjxform.config

/**
 * The fields each nats-server line knows in the blocks `subjxform validate` reads, lower case: "top" (a
 * server config's top level), "account" (an account of `accounts`), "export", "import" and
 * "import_account" (the `stream`/`service` map of an import), "authorization", "cluster", "gateway",
 * "gateway_remote" (an entry of its `gateways`), "jetstream", "leafnodes", "leafnode_remote" (an entry of
 * its `remotes`), "websocket", "mqtt", "tls", and the blocks of authorization: "user" (an entry of `users`),
 * "permissions", "subject_permission" (its `allow`/`deny` map), "allow_responses", "auth_callout",
 * "leaf_authorization" (a leafnodes block's), "leaf_user" (an entry of its `users`) and "simple_authorization"
 * (websocket's and mqtt's); a list is named by the first line that has it. Generated by
 * tests/server_fields.py from each line's own server/opts.go (the cases of its "unknown field" switches;
 * releases {", ".join(RELEASES.values())}): do not edit.
 */
private[subjxform] object ServerFields {{
{val_text}

  /** The oldest line's lists, then each later line's that differ from the line before's. */
  private val lineChanges: Seq[(String, Map[String, Set[String]])] = Seq(
{body})

  val known: Map[String, Map[String, Set[String]]] =
    lineChanges.scanLeft(("", Map.empty[String, Set[String]])) {{ case ((_, before), (line, changed)) =>
      (line, before ++ changed)
    }}.tail.toMap

  /**
   * The releases whose lists differ from their line's (its measured release's): per block, the fields the
   * release has that the line's list has not, and those it lacks.
   */
  // format: off
  private val releaseChanges: Map[String, Map[String, (Set[String], Set[String])]] = Map(
{change_body})
  // format: on

  /** The fields `release` (like "2.11.0") of `line` knows in `block`: its line's list where it does not differ. */
  def of(release: String, line: String, block: String): Set[String] =
    releaseChanges.get(release).flatMap(_.get(block)).fold(known(line)(block)) {{ case (added, removed) =>
      known(line)(block) ++ added -- removed
    }}

  /** The fields of a block that some line knows: one of them marks a text as a server config, on any line. */
  val anyLine: Map[String, Set[String]] =
    (known.values.flatMap(_.toSeq) ++ releaseChanges.values.flatMap(_.toSeq.map {{ case (b, (added, _)) => b -> added }}))
      .groupBy(_._1).map {{ case (block, sets) => block -> sets.flatMap(_._2).toSet }}
}}
"""


def types_scala(lines: dict[str, dict[str, dict[str, str]]], changes: dict[str, dict[str, dict[str, str]]]) -> str:
    """ServerFieldTypes.scala: each line's types, and the releases whose types differ from their line's ("": none)."""

    def block_map(fields: dict[str, str], indent: str) -> str:
        pairs = [f"{json.dumps(f)} -> {json.dumps(t)}" for f, t in sorted(fields.items())]
        return "Map(\n" + ",\n".join(indent + "  " + p for p in pairs) + ")"

    def blocks_map(blocks: dict[str, dict[str, str]], indent: str) -> str:
        rows = [f'{indent}  "{b}" -> {block_map(f, indent + "  ")}' for b, f in sorted(blocks.items()) if f]
        return "Map(\n" + ",\n".join(rows) + ")"

    def changed(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        """Per block, the fields whose type `after` reads otherwise than `before` ("": no assertion now)."""
        out = {}
        for b in sorted(set(before) | set(after)):
            old, new = before.get(b, {}), after.get(b, {})
            moved = {f: new.get(f, "") for f in set(old) | set(new) if old.get(f, "") != new.get(f, "")}
            if moved:
                out[b] = moved
        return out

    # The oldest line whole, each later line as what it reads otherwise than the line before it (most fields agree).
    names = list(lines)
    oldest = f'"{names[0]}" -> {blocks_map(lines[names[0]], "  ")}'
    line_rows = ",\n".join(
        f'    "{line}" -> {blocks_map(changed(lines[before], lines[line]), "    ")}'
        for before, line in zip(names, names[1:])
    )
    change_rows = ",\n".join(f'    "{r}" -> {blocks_map(blocks, "    ")}' for r, blocks in changes.items())
    return f"""package subjxform.config

/**
 * The Go type each field of a block is read as, where nats-server's case for it starts with a bare type assertion of
 * the value (`o.Host = mv.(string)`): a value of another type panics, and the server reports the panic as the field's
 * error, `interface conversion: interface {{}} is int64, not string`; or `duration:NAME` for a field read with
 * parseDuration (NAME: what its messages call it; empty: the key as written). Blocks as in [[ServerFields]].
 * Generated by tests/server_fields.py from each release's own server/opts.go (tests/conf_oracle `types`): do not
 * edit.
 */
private[subjxform] object ServerFieldTypes {{
  private type Types = Map[String, Map[String, String]]

  // format: off
  private val oldestLine: (String, Types) = {oldest}

  /** Each later line: per block, the fields whose type it reads otherwise than the line before ("": no assertion). */
  private val lineChanges: Seq[(String, Types)] = Seq(
{line_rows})

  /** The releases whose types differ from their line's release, the same way. */
  private val releaseChanges: Map[String, Types] = Map(
{change_rows})
  // format: on

  private def patched(before: Types, changes: Types): Types =
    (before.keySet ++ changes.keySet).map {{ b =>
      b -> (before.getOrElse(b, Map.empty[String, String]) ++ changes.getOrElse(b, Map.empty[String, String]))
        .filter(_._2.nonEmpty)
    }}.toMap

  private val lines: Map[String, Types] =
    lineChanges.scanLeft(oldestLine) {{ case ((_, before), (line, changes)) => line -> patched(before, changes) }}.toMap

  /** How `release` of `line` reads `field` of `block` (its asserted type, or `duration:NAME`), if its case says. */
  def of(release: String, line: String, block: String, field: String): Option[String] =
    releaseChanges.get(release).flatMap(_.get(block)).flatMap(_.get(field)) match {{
      case Some(changed) => Some(changed).filter(_.nonEmpty)
      case None => lines.get(line).flatMap(_.get(block)).flatMap(_.get(field))
    }}
}}
"""


def main(check: bool) -> int:
    with tempfile.TemporaryDirectory() as folder:
        binary = str(Path(folder) / "conf_oracle")
        subprocess.run(["go", "build", "-o", binary, "."], cwd=ORACLE, check=True)

        def fields_of(release: str) -> dict[str, list[str]]:
            opts = release_source(release, folder) / "server" / "opts.go"
            out = subprocess.run([binary, "fields", str(opts)], capture_output=True, text=True, check=True).stdout
            return json.loads(out)

        def types_of(release: str) -> dict[str, dict[str, str]]:
            opts = release_source(release, folder) / "server" / "opts.go"
            out = subprocess.run([binary, "types", str(opts)], capture_output=True, text=True, check=True).stdout
            return json.loads(out)

        known = {}
        for line, release in RELEASES.items():
            found = fields_of(release)
            missing = [b for b in BLOCKS if not found.get(b) and b not in LATER_BLOCKS]
            for b in LATER_BLOCKS:
                found.setdefault(b, [])
            if missing:
                print(f"server_fields: no unknown-field switch for {missing} in {release}", file=sys.stderr)
                return 1
            known[line] = found
        line_types = {line: types_of(release) for line, release in RELEASES.items()}
        type_changes: dict[str, dict[str, dict[str, str]]] = {}
        changes: dict[str, dict[str, tuple[list, list]]] = {}
        for line, patches in PUBLISHED.items():
            for patch in patches:
                release = f"{line}.{patch}"
                if release == RELEASES[line]:
                    continue
                found = fields_of(release)
                differ = {}
                for b in BLOCKS:
                    if not found.get(b):  # a block this release's opts.go reads another way: its line's list
                        continue
                    added = sorted(set(found[b]) - set(known[line][b]))
                    removed = sorted(set(known[line][b]) - set(found[b]))
                    if added or removed:
                        differ[b] = (added, removed)
                if differ:
                    changes[release] = differ
                mine, theirs = types_of(release), line_types[line]
                typed: dict[str, dict[str, str]] = {}
                for b in BLOCKS:
                    if b not in mine:
                        continue
                    fields = set(mine[b]) | set(theirs.get(b, {}))
                    moved = {
                        f: mine[b].get(f, "") for f in fields if mine[b].get(f, "") != theirs.get(b, {}).get(f, "")
                    }
                    if moved:
                        typed[b] = moved
                if typed:
                    type_changes[release] = typed
    outputs = {OUT: scala(known, changes), TYPES_OUT: types_scala(line_types, type_changes)}
    if check:
        for path, text in outputs.items():
            if path.read_text(encoding="utf-8") != text:
                print(f"server_fields: {path} is stale: run python3 tests/server_fields.py", file=sys.stderr)
                return 1
        return 0
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
    print(f"{OUT}: {', '.join(f'{k} {sum(len(v) for v in b.values())}' for k, b in known.items())} fields")
    return 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
