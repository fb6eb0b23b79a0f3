"""The `subjxform` command: `nats server mapping` on the jar's engine, without Spark."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

# The docs page's `nats server mapping` examples (with the output a real nats-server gives: the
# docs print `orders.order1` for the token-dropping example, the server gives `foo.order1`).
DOC_EXAMPLES = [
    ("foo", "bar", "foo", "bar"),
    (">", "baz.>", "bar.a.b", "baz.bar.a.b"),
    ("bar.*.*", "baz.{{wildcard(2)}}.{{wildcard(1)}}", "bar.a.b", "baz.b.a"),
    ("orders.*.*", "foo.{{wildcard(2)}}", "orders.local.order1", "foo.order1"),
    ("*", "{{split(1,-)}}", "foo-bar", "foo.bar"),
    ("*", "{{split(1,--)}}", "foo--bar", "foo.bar"),
    ("*", "{{splitfromleft(1,4)}}", "1234567", "1234.567"),
    ("*", "{{splitfromright(1,4)}}", "1234567", "123.4567"),
    ("*", "{{slicefromleft(1,2)}}", "1234567", "12.34.56.7"),
    ("*", "{{slicefromright(1,2)}}", "1234567", "1.23.45.67"),
    ("neworders.*", "neworders.{{wildcard(1)}}.{{partition(3,1)}}", "neworders.customerid1", "neworders.customerid1.0"),
    ("foo.*.*", "foo.{{wildcard(1)}}.{{wildcard(2)}}.{{partition(5,1,2)}}", "foo.us.customerid", "foo.us.customerid.0"),
]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "subjxform", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("src,dest,subject,expected", DOC_EXAMPLES)
def test_docs_examples(src, dest, subject, expected):
    result = run("mapping", src, dest, subject)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{expected}\n\n"


def test_several_subjects_and_a_non_matching_one():
    result = run(
        "mapping",
        "neworders.*",
        "neworders.{{wildcard(1)}}.{{partition(3,1)}}",
        "neworders.customerid2",
        "neworders.customerid3",
        "test",
    )
    assert result.stdout.split("\n\n")[:3] == [
        "neworders.customerid2.2",
        "neworders.customerid3.1",
        "Error: no matching transforms available",
    ]


def test_interactive_prompt_until_an_empty_subject():
    result = run("mapping", "foo", "bar", stdin="foo\ntest\n\nnever.read\n")
    assert result.returncode == 0
    assert result.stdout.startswith("Enter subjects to test, empty subject terminates.\n")
    assert "? Subject bar\n" in result.stdout
    assert "? Subject Error: no matching transforms available\n" in result.stdout
    assert "never.read" not in result.stdout


def test_an_invalid_transform_is_an_error_in_nats_servers_words():
    result = run("mapping", "a.*", "b.{{wildcard(2)}}", "a.x")
    assert result.returncode == 1
    assert (
        result.stdout.strip()
        == "Error: invalid mapping destination: wildcard index out of range in {{wildcard(2)}}: [2]"
    )


def test_bad_subjects_and_dropped_results_are_explained():
    result = run("mapping", "a.*", "b.{{split(1,-)}}", "a..b", "a.--x")
    outputs = result.stdout.split("\n\n")
    assert outputs[0] == "Error: invalid subject"
    assert outputs[1].startswith("Error: the result has an empty token")


def run_bytes(*args: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable.encode(), b"-m", b"subjxform", *args], capture_output=True, timeout=60)


# A subject whose middle token is not UTF-8: as text it would become U+FFFD and hash differently.
INVALID_UTF8 = b"orders.\xff\xfe.42"
PARTITION_MAPPING = ("orders.*.*", "p.{{partition(1000,1)}}.$1.$2")


@pytest.mark.skipif(shutil.which("nats-server") is None, reason="nats-server is not on PATH")
def test_mapping_reads_subjects_as_bytes_its_partition_is_nats_servers_and_sparks(spark):
    src, dest = PARTITION_MAPPING
    ours = run_bytes(b"mapping", src.encode(), dest.encode(), INVALID_UTF8)
    assert ours.returncode == 0, ours.stderr
    cli = ours.stdout.removesuffix(b"\n\n")
    from nats_oracle import Account, MappingServer

    account = Account("A", [(src, dest)])
    with MappingServer([account]) as server:
        delivered = server.deliveries(account, [INVALID_UTF8.decode("utf-8", "surrogateescape")])[0]
    assert len(delivered) == 1
    server_bytes = delivered[0].encode("utf-8", "surrogateescape")
    spark_hex = (
        spark.sql(f"SELECT hex(subject_transform(CAST(X'{INVALID_UTF8.hex()}' AS STRING), '{src}', '{dest}')) AS h")
        .first()
        .h
    )
    assert cli == server_bytes == bytes.fromhex(spark_hex)
    assert cli.startswith(b"p.") and cli.endswith(b".\xff\xfe.42")
    # Read as text (U+FFFD for each bad byte), the subject would land in another partition.
    lossy = INVALID_UTF8.decode("utf-8", "replace").encode()
    lossy_hex = (
        spark.sql(f"SELECT hex(subject_transform(CAST(X'{lossy.hex()}' AS STRING), '{src}', '{dest}')) AS h").first().h
    )
    assert bytes.fromhex(lossy_hex).split(b".")[1] != cli.split(b".")[1]
    # The interactive prompt reads stdin as bytes too.
    prompted = subprocess.run(
        [sys.executable, "-m", "subjxform", "mapping", src, dest],
        input=INVALID_UTF8 + b"\n\n",
        capture_output=True,
        timeout=60,
    )
    assert cli in prompted.stdout


def test_help_exits_0_and_unknown_options_are_usage_errors():
    for args in (["--help"], ["mapping", "--help"], ["validate", "--help"]):
        result = run(*args)
        assert result.returncode == 0, args
        assert "usage: subjxform" in result.stdout or "subjxform mapping" in result.stdout
    assert "Exit code 0" in run("mapping", "--help").stdout
    unknown = run("mapping", "--bogus", "a.*", "b.$1", "a.x")
    assert unknown.returncode == 2 and "unknown option --bogus" in unknown.stderr and unknown.stdout == ""
    assert run("mapping", "*", "x.$1", "--", "-dash").stdout == "x.-dash\n\n"
    assert run("nosuchcommand").returncode == 2
    assert run().returncode == 2


def test_mapping_exit_codes_non_matching_and_invalid_subjects_still_0():
    result = run("mapping", "a.*", "b.$1", "a.x", "nomatch", "a..b")
    assert result.returncode == 0
    assert result.stdout == "b.x\n\nError: no matching transforms available\n\nError: invalid subject\n\n"


@pytest.mark.skipif(shutil.which("nats-server") is None, reason="nats-server is not on PATH")
def test_nesting_depth_limit_is_nats_servers_one_line_exit_1(tmp_path):
    """`nats-server -t` parses lists 9,999 deep under a top-level key and rejects 10,000 (Go's JSON depth
    limit); `validate` draws the line at the same depth, in one line, exit code 1, never a Java stack. Under
    the limit the file parses: nats-server then refuses the unknown field `foo`, and so does `validate`."""
    for depth, too_deep in ((9999, False), (10000, True), (200000, True)):
        path = tmp_path / f"deep{depth}.conf"
        path.write_text("port: -1\nfoo: " + "[" * depth + "]" * depth + "\n")
        ours = run("validate", str(path))
        assert ours.returncode == 1 and ours.stderr == ""
        assert ("nested more than 10000 deep" in ours.stdout) == too_deep, ours.stdout[:300]
        assert ('unknown field "foo"' in ours.stdout) == (not too_deep), ours.stdout[:300]
        if too_deep:
            assert (
                ours.stdout == f"{path}: error: Parse error on line 2: 'lists and maps nested more than 10000 deep'\n"
            )
        if depth < 20000:  # nats-server takes minutes over 200,000
            theirs = subprocess.run(
                [shutil.which("nats-server"), "-t", "-c", str(path)], capture_output=True, text=True, timeout=120
            )
            assert ("exceeded max depth" in theirs.stderr + theirs.stdout) == too_deep


# --- subjxform validate FILE ------------------------------------------------------------------------

import json  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

from test_subject_map import CANARY, CLUSTERS, LOSS, SHAPING, SIMPLE, SPLIT_AND_LOSS  # noqa: E402

STREAMS = sorted((Path(__file__).parent / "streams").glob("*.json"))
NATS = shutil.which("nats-server")
# How a valid file's line starts by default: the newest line's measured release (ServerVersion.LineReleases).
VALID = "valid for nats-server 2.15.1 (the 2.15 line's release)"
# The docs page's blocks and how many rules each has.
DOC_BLOCKS = {
    "canary": (CANARY, 1),
    "shaping": (SHAPING, 1),
    "loss": (LOSS, 1),
    "split_and_loss": (SPLIT_AND_LOSS, 1),
    "simple": (SIMPLE, 2),
    "clusters": (CLUSTERS, 1),
}


def as_server_config(body: str) -> str:
    return f"port: -1\nmappings {{\n{body}\n}}\n"


@pytest.mark.parametrize("name", sorted(DOC_BLOCKS))
def test_validate_accepts_the_docs_blocks_as_block_content_and_as_a_server_config(tmp_path, name):
    body, rules = DOC_BLOCKS[name]
    texts = [body] if body.lstrip().startswith("mappings") else [body, as_server_config(body)]
    for text in texts:
        path = tmp_path / "mappings.conf"
        path.write_text(text)
        result = run("validate", str(path))
        assert result.returncode == 0
        # (the docs' simple block has a literal rule its wildcard rule also matches: a warning)
        counted = f"{rules} mapping{'s' if rules > 1 else ''}"
        if text is not body:  # the block in a server config: the config's fields and where its mappings are
            counted = f"a server config of 2 top-level fields, {counted} in mappings"
        assert result.stdout.splitlines()[-1].startswith(f"{VALID}: {counted}")


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_validate_accepts_the_stream_configs_and_says_what_they_do(path):
    config = json.loads(path.read_text())
    result = run("validate", str(path))
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith(f'{VALID}: stream "{config["name"]}" (')
    sources = len(config.get("sources") or [])
    if sources:
        assert f"{sources} source" in result.stdout


@pytest.mark.parametrize(
    "change,field,message",
    [
        (lambda c: c.update(name="a.b"), "name", "stream name is required and can not contain"),
        (
            lambda c: c.update(subjects=["orders.*", "orders.>"]),
            "subjects[0]",
            'subject "orders.*" overlaps with "orders.>"',
        ),
        (
            lambda c: c.update(republish={"src": "orders.*", "dest": "orders.local.x"}),
            "republish.dest",
            "forms a cycle",
        ),
        (
            lambda c: c.update(subject_transform={"src": "orders.local.*", "dest": "x.$2"}),
            "subject_transform",
            "stream transform: invalid mapping destination: wildcard index out of range in $2: [2]",
        ),
        (lambda c: c["sources"][0].update(name="other.orders"), "sources[0].name", "sourced stream name is invalid"),
        (lambda c: c.update(num_replicas="3"), "num_replicas", "must be an integer"),
    ],
)
def test_validate_names_the_stream_field_and_gives_nats_servers_error(tmp_path, change, field, message):
    config = json.loads((Path(__file__).parent / "streams" / "docs_orders.json").read_text())
    change(config)
    path = tmp_path / "stream.json"
    path.write_text(json.dumps(config))
    result = run("validate", str(path))
    assert result.returncode == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"{path}: error: {field}: "), first
    assert message in first


def test_validate_a_stream_info_output_and_stdin():
    info = json.dumps({"config": json.loads(STREAMS[0].read_text()), "state": {"messages": 3}})
    result = run("validate", "-", stdin=info)
    assert result.returncode == 0 and result.stdout.startswith(f"{VALID}: stream ")
    result = run("validate", "--stream", "-", stdin='{"name": "ORDERS"}')
    assert result.stdout == f'{VALID}: stream "ORDERS" (1 subject)\n'


BROKEN = """\
port: -1
mappings {
  "orders.*.*": [
    { destination: "orders.v1.{{partition(8,3)}}", weight: 95% }
    { destination: "orders.v2", weight: 5% }
  ]
  "a.>": "b.{{wildcard(1)}}"
  "a.b": "c"
  "bad..subject": x
  "w.*": [{ destination: "w.$1", weight: 60% }, { destination: "w.x.$1", weight: 60% }]
  "n.*": [{ destination: "n.$1", weight: "x%" }]
}
accounts {
  A: { users: [{user: a, password: a}], mappings: { "x.*": "y.$2", "ok.*": "fine.$1" } }
}
"""


def test_validate_lists_every_problem_one_per_line_with_exit_code_1(tmp_path):
    path = tmp_path / "broken.conf"
    path.write_text(BROKEN)
    result = run("validate", str(path))
    assert result.returncode == 1, (result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    errors = [line for line in lines if ": error: " in line]
    assert len(errors) == 6, (lines, result.stderr)
    # where nats-server -t 2.15.1 places them: a bad rule subject at its block, a bad weight at its field
    assert (
        errors[0] == f'{path}:2:1: error: mappings: rule "bad..subject": Subject "bad..subject" is not a valid subject'
    )
    assert any(
        line.startswith(
            f'{path}:3:4: error: mappings: rule "orders.*.*", destination "orders.v1.{{{{partition(8,3)}}}}": '
        )
        for line in errors
    )
    assert (
        f'{path}:11:34: error: mappings: rule "n.*", destination "n.$1": Invalid weight "x" for mapping'
        in "\n".join(errors)
    )
    assert any(": warning: " in line and 'rule "a.b"' in line for line in lines)  # overlaps "a.>"
    assert any(line.startswith(f'{path}:14:54: error: accounts.A.mappings: rule "x.*"') for line in errors)
    assert (
        lines[-1]
        == f"{path}: 6 errors, 1 warning (a server config of 3 top-level fields, 1 account, 8 mappings in mappings, "
        "accounts.A.mappings): nats-server 2.15.1 would not accept it"
    )


@pytest.mark.skipif(NATS is None, reason="nats-server is not on PATH")
@pytest.mark.parametrize(
    "text",
    [BROKEN, as_server_config(CANARY), as_server_config(SHAPING), as_server_config(SIMPLE)],
    ids=["broken", "canary", "shaping", "simple"],
)
def test_validate_agrees_with_nats_server_dash_t(tmp_path, text):
    """Every error `nats-server -t` prints is ours, at the same line and column (a bad rule subject: the block's, as
    nats-server's), and ours are no more than its; both accept the same files."""
    path = tmp_path / "server.conf"
    path.write_text(text)
    theirs = subprocess.run([NATS, "-t", "-c", str(path)], capture_output=True, text=True, timeout=30)
    ours = run("validate", str(path))
    assert (ours.returncode == 0) == (theirs.returncode == 0), (ours.stdout, theirs.stderr)
    their_errors = re.findall(rf"{re.escape(path.name)}:(\d+):(\d+): (.*)", theirs.stderr + theirs.stdout)
    our_errors = re.findall(
        rf"^{re.escape(str(path))}:(\d+):(\d+): error: (?:[\w.]+: )?rule .*?: (.*)$", ours.stdout, re.M
    )
    assert sorted(m for _, _, m in our_errors) == sorted(m for _, _, m in their_errors)
    assert set(their_errors) <= set(our_errors)


def test_validate_unreadable_file_and_usage_errors_exit_with_2(tmp_path):
    missing = run("validate", str(tmp_path / "missing.conf"))
    assert (missing.returncode, missing.stdout) == (
        2,
        f"subjxform validate: cannot read {tmp_path / 'missing.conf'}: no such file\n",
    )
    no_file = run("validate")
    assert (no_file.returncode, no_file.stdout) == (2, "")  # a usage error: one line on stderr, as --help says
    assert no_file.stderr == "subjxform validate: FILE is needed (see subjxform validate --help)\n"
    assert run("validate", "a", "b").returncode == 2
    assert run("validate", str(tmp_path)).returncode == 2  # a directory


def test_validate_a_syntax_error_is_a_problem_in_the_parsers_words(tmp_path):
    (tmp_path / "s.conf").write_text('mappings {\n  "a.*": [ { destination: "b.$1", weight: 100% }\n')
    result = run("validate", str(tmp_path / "s.conf"))
    assert result.returncode == 1
    assert re.match(rf"{re.escape(str(tmp_path / 's.conf'))}: error: Parse error on line \d+", result.stdout)


# Rules the server lines judge differently (left/right from 2.15, random from 2.12, partition(n) and
# counts above 2^31-1, error texts), and a rule every line accepts.
LINES_CONFIG = """accounts {
  A {
    users: [{user: a, password: a}]
    mappings {
      "orders.*": "orders.{{left(1,2)}}"
      "draw.*": "d.{{random(3)}}"
      "whole.*": "w.{{partition(3)}}"
      "keys.*": "k.{{partition(0,1)}}"
      "big.*": "b.{{partition(2147483648,1)}}"
      "gap.*": "foo..bar"
      "plain.*": "p.$1"
    }
  }
}
"""


@pytest.mark.parametrize("line", ["2.10", "2.11", "2.12", "2.14", "2.15"])
def test_validate_server_version_agrees_with_that_lines_nats_server_dash_t(tmp_path, line):
    """`validate --server-version L` prints exactly the errors the real binary of line L prints (installed
    by scripts/nats-servers.sh into .tools/nats-server/<line>/)."""
    binary = Path(__file__).resolve().parent.parent / ".tools" / "nats-server" / line / "bin" / "nats-server"
    if not binary.exists():
        pytest.skip(f"no nats-server {line}: run scripts/nats-servers.sh")
    path = tmp_path / "server.conf"
    path.write_text(LINES_CONFIG)
    theirs = subprocess.run([str(binary), "-t", "-c", str(path)], capture_output=True, text=True, timeout=30)
    ours = run("validate", "--server-version", line, str(path))
    their_errors = re.findall(rf"{re.escape(path.name)}:(\d+):(\d+): (.*)", theirs.stderr + theirs.stdout)
    our_errors = re.findall(
        rf"^{re.escape(str(path))}:(\d+):(\d+): error: (?:[\w.]+: )?rule .*?: (.*)$", ours.stdout, re.M
    )
    assert their_errors and sorted(our_errors) == sorted(their_errors), (ours.stdout, theirs.stderr)
    assert ours.returncode == 1


def test_validate_upgrade_to_prints_the_changes_as_a_table(tmp_path):
    path = tmp_path / "server.conf"
    path.write_text(LINES_CONFIG)
    result = run("validate", "--server-version", "2.11", "--upgrade-to", "2.15", str(path))
    assert result.returncode == 1  # invalid on 2.11
    table = result.stdout.split("Upgrade from nats-server 2.11 to 2.15: ", 1)[1].splitlines()
    assert table[0] == "6 changes"
    rows = {re.search(r'"([\w.*]+)" ->', r).group(1): r for r in table[2:-1]}
    assert set(rows) == {"orders.*", "draw.*", "whole.*", "keys.*", "big.*", "gap.*"}
    assert "become valid" in rows["orders.*"] and "become valid" in rows["draw.*"] and "become valid" in rows["whole.*"]
    assert "become invalid" in rows["big.*"] and "deliver otherwise" in rows["keys.*"]
    assert "change their error" in rows["gap.*"]
    assert table[-1] == "1 become invalid, 3 become valid, 1 change their error, 1 deliver otherwise"
    bad = run("validate", "--server-version", "2.13", str(path))
    assert bad.returncode == 2 and "supported lines are 2.10, 2.11, 2.12, 2.14, 2.15" in bad.stderr


# --- A newcomer's first hour: usage errors and help texts alike in every subcommand ----------------------


def usage_errors(tmp_path) -> list[list[str]]:
    table = tmp_path / "m.conf"
    table.write_text('orders.*: "orders.central.$1"\n', encoding="utf-8")
    traffic = tmp_path / "t.csv"
    traffic.write_text("subject\norders.x\n", encoding="utf-8")
    t, m = str(traffic), str(table)
    return [
        [],
        ["nosuchcommand"],
        ["jar", "--bogus"],
        ["jar", "--spark"],
        ["jar", "--spark", "9.9"],
        ["mapping", "--bogus", "a.*", "b.$1"],
        ["mapping", "a.*"],
        ["mapping", "--server-version", "2.13", "a.*", "b.$1"],
        ["validate"],
        ["validate", "--bogus", m],
        ["validate", "--mappings", "--stream", m],
        ["validate", "--server-version", "2.13", m],
        ["validate", "--upgrade-to", "2.15", m],
        ["report"],
        ["report", t],
        ["report", t, "--mappings", m, "--partitions", "orders.*:x:1"],
        ["report", t, "--mappings", m, "--server-version", "2.13"],
        ["report", m, "--mappings", m],
        ["report", t, "--mappings", m, "--upgrade-to", "2.15"],
        ["report", t, "--mappings", m, "--bogus"],
        ["sql"],
        ["sql", m, "--bogus"],
        ["sql", m, "--seed", "x"],
        ["sql", m, "--server-version", "2.13"],
        ["sql", m, "--view", "v"],
        ["sql", str(tmp_path / "missing.conf")],
    ]


def test_every_usage_error_exits_2_with_one_line_on_stderr_and_no_traceback(tmp_path):
    wrong = []
    for args in usage_errors(tmp_path):
        result = run(*args)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        if result.returncode != 2 or len(lines) != 1 or result.stdout.strip() or "Traceback" in result.stderr:
            wrong.append((args, result.returncode, lines[:4]))
    assert not wrong, wrong


MARKUP = re.compile(r"``|:(?:mod|func|class|meth):`")


def test_help_texts_are_plain_and_give_no_advice_that_fails_before_a_release():
    for args in (
        ["--help"],
        ["jar", "--help"],
        ["mapping", "--help"],
        ["validate", "--help"],
        ["report", "--help"],
        ["sql", "--help"],
    ):
        result = run(*args)
        assert result.returncode == 0 and result.stdout.strip(), args
        assert not MARKUP.search(result.stdout), (args, MARKUP.search(result.stdout).group(0))
        assert "subjxform[" not in result.stdout, args  # extras from an index: nothing is released yet
    top = run("--help").stdout
    assert all(f"\n  {command} " in top for command in ("jar", "mapping", "validate", "report", "sql")), top


@pytest.mark.parametrize("module", ["subjxform.cli.sql", "subjxform.cli.report"])
def test_every_option_of_sql_and_report_is_described(module):
    import importlib

    undescribed = [a.dest for a in importlib.import_module(module)._arguments()._actions if not a.help]
    assert not undescribed


# --- validate --nats-server: a real binary's -t beside validate's verdict ----------------------------------

LINE_BINARY = Path(__file__).resolve().parent.parent / ".tools" / "nats-server" / "{line}" / "bin" / "nats-server"


@pytest.mark.skipif(
    not all(os.access(str(LINE_BINARY).format(line=n), os.X_OK) for n in ("2.11", "2.15")),
    reason="no nats-server binary of lines 2.11 and 2.15 (scripts/nats-servers.sh)",
)
def test_validate_nats_server_shows_the_binarys_verdict_beside_and_warns_where_they_differ(tmp_path):
    b11, b15 = (str(LINE_BINARY).format(line=n) for n in ("2.11", "2.15"))
    good, bad, crash = tmp_path / "good.conf", tmp_path / "bad.conf", tmp_path / "crash.conf"
    good.write_text("port: 4222\n")
    bad.write_text("port: 4222\nfoo: 1\n")
    # 2.11's -t accepts it; its server process exits on the first message the rule maps: validate says crash
    crash.write_text('mappings { "k.*": "k.{{partition(0,1)}}" }\n')
    ok = run("validate", "--nats-server", b15, str(good))
    assert ok.returncode == 0 and ok.stderr == "", ok
    assert ok.stdout.splitlines()[-1] == f"{good}: nats-server 2.15.1 -t: valid"
    both = run("validate", "--nats-server", b15, str(bad))
    assert both.returncode == 1 and "warning" not in both.stdout
    assert f'{bad}: nats-server 2.15.1 -t: refused: {bad}:2:1: unknown field "foo"' in both.stdout.splitlines()
    differ = run("validate", "--nats-server", b11, str(crash))  # (the binary's release is the one checked: 2.11.11)
    assert differ.returncode == 1
    assert differ.stdout.splitlines()[-2:] == [
        f"{crash}: nats-server 2.11.11 -t: valid",
        f"{crash}: warning: nats-server 2.11.11 -t and subjxform differ: it accepts the config, subjxform found "
        "problems (above)",
    ]
    missing = run("validate", "--nats-server", str(tmp_path / "no-such-binary"), str(good))
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.startswith(f"subjxform validate: --nats-server: cannot run {tmp_path / 'no-such-binary'}")
    stdin = run("validate", "--nats-server", b15, "-")
    assert (stdin.returncode, stdin.stdout) == (2, "")
    assert "--nats-server runs -t on a FILE, not on standard input" in stdin.stderr
