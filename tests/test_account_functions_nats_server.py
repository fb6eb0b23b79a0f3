"""The account functions of nats-server 2.14.10 and 2.15.3 (issue #8631) against a live 2.15.3, built from its Go
module (`GOBIN=.tools/nats-server/2.15.3/bin go install github.com/nats-io/nats-server/v2@v2.15.3`): what a server
delivered in accounts A and B, what `nats-server -t` refused and what JetStream refused, beside what the grammar (the
portable path's reader, the jar's twin) says. Skipped where that binary is not built (no wheel of 2.15.3 exists).
AccountFunctionsSuite (the core's Scala tests) checks the jar's engine with the same facts."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import needs_jar
from nats_client import NatsClient, jetstream_server, settled
from processes import free_port, listening, stop, wait_until
from subjxform.grammar import mapping_table, subject_transform
from subjxform.grammar import server_version as versions
from subjxform.grammar.account_functions import account_hash

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".tools", "nats-server", "2.15.3", "bin", "nats-server")
pytestmark = pytest.mark.skipif(not os.access(BINARY, os.X_OK), reason=f"{BINARY} is not built")

MAPPINGS = {"orders.*": "orders.{{account-hash()}}.{{wildcard(1)}}", "in.{{account-hash()}}.*": "got.{{wildcard(1)}}"}


def _conf_block(mappings: dict) -> str:
    return ", ".join(f'"{k}": "{v}"' for k, v in mappings.items())


CONFIG = """accounts {{
  A: {{ users: [{{user: a, password: a}}], mappings: {{ {mappings} }},
       exports: [{{stream: "ev.{{{{account-hash()}}}}.>"}}] }}
  B: {{ users: [{{user: b, password: b}}], mappings: {{ {mappings} }},
       imports: [{{stream: {{account: A, subject: "ev.{{{{account-hash-import()}}}}.>"}},
                  to: "imp.{{{{account-hash-import()}}}}.{{{{account-hash()}}}}.>"}}] }}
}}
""".format(mappings=_conf_block(MAPPINGS))

# What each account publishes: its mappings' subjects, and A's export.
PUBLISHED = {"A": ["orders.x", f"in.{account_hash('A')}.q", f"ev.{account_hash('A')}.z"], "B": ["orders.y"]}


@pytest.fixture(scope="module")
def live():
    """What a live 2.15.3 delivered of PUBLISHED under CONFIG: {account: sorted subjects received} (each account
    subscribed to everything), and the config's path (for replay)."""
    port = free_port()
    store = tempfile.mkdtemp(prefix="subjxform-acchash-")
    path = os.path.join(store, "server.conf")
    with open(path, "w", encoding="utf-8") as f:
        f.write(CONFIG)
    with open(os.path.join(store, "live.conf"), "w", encoding="utf-8") as f:
        f.write(f"port: {port}\ninclude server.conf\n")
    proc = subprocess.Popen(
        [BINARY, "-c", os.path.join(store, "live.conf")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_until("nats-server 2.15.3", lambda: listening(port), 10, [proc])
        clients = {"A": NatsClient(port, {"user": "a", "pass": "a"}), "B": NatsClient(port, {"user": "b", "pass": "b"})}
        for c in clients.values():
            c.subscribe(">")
        time.sleep(0.3)  # the subscriptions reach the server before the first message
        for account, subjects in PUBLISHED.items():
            for subject in subjects:
                clients[account].publish(subject)
        delivered = settled(lambda: {a: sorted(c.received("")) for a, c in clients.items()})
    finally:
        stop(proc, grace=5)
    return delivered, path


def test_the_live_server_resolves_them_per_account(live):
    delivered, _ = live
    assert delivered == {
        "A": ["ev.NUmM6cRx.z", "got.q", "orders.NUmM6cRx.x"],
        "B": ["imp.NUmM6cRx.b2oh2L6w.z", "orders.b2oh2L6w.y"],
    }


def _published_mapped(delivered: dict) -> dict:
    """What each account received of its own publications (its mappings' results): the live deliveries without
    the stream import's (which the accounts' routes give)."""
    return {a: [s for s in subjects if not s.startswith("imp.")] for a, subjects in delivered.items()}


def test_the_grammar_maps_what_the_server_delivered(live):
    own = _published_mapped(live[0])
    v = versions.parse("2.15.3")
    for account, subjects in PUBLISHED.items():
        table = mapping_table.compile_mappings(MAPPINGS, v, account=account)
        assert sorted(mapping_table.map_reference(table, s) for s in subjects) == own[account], account


def _messages(spark):
    return spark.createDataFrame(
        [(a, s) for a, subjects in PUBLISHED.items() for s in subjects], ["account", "subject"]
    )


@needs_jar
def test_sql_and_python_with_account_give_what_the_server_delivered(spark, live):
    from pyspark.sql import functions as F

    import subjxform

    own = _published_mapped(live[0])
    df = _messages(spark)
    for account in PUBLISHED:
        mine = df.where(F.col("account") == account)
        table = MAPPINGS
        by_sql = mine.selectExpr(
            f"subject_map(subject, '{mapping_table.mappings_text(table)}', server_version => '2.15.3', "
            f"account => '{account}')"
        )
        by_python = mine.select(subjxform.subject_map("subject", table, server_version="2.15.3", account=account))
        transformed = mine.where(F.col("subject").startswith("orders.")).select(
            subjxform.subject_transform(
                "subject", "orders.*", MAPPINGS["orders.*"], server_version="2.15.3", account=account
            )
        )
        for got in (by_sql, by_python):
            assert sorted(r[0] for r in got.collect()) == own[account], account
        assert [r[0] for r in transformed.collect()] == [s for s in own[account] if s.startswith("orders.")]


def test_the_portable_functions_with_account_give_what_the_server_delivered(spark, live):
    from pyspark.sql import functions as F

    from subjxform import portable

    own = _published_mapped(live[0])
    df = _messages(spark)
    for account in PUBLISHED:
        got = df.where(F.col("account") == account).select(
            portable.subject_map("subject", MAPPINGS, server_version="2.15.3", account=account)
        )
        assert sorted(r[0] for r in got.collect()) == own[account], account


@needs_jar
def test_replay_delivers_what_the_server_delivered(spark, live):
    import subjxform

    delivered, path = live
    replayed = subjxform.replay(_messages(spark), path, server_version="2.15.3")
    got: dict = {}
    for r in replayed.collect():
        got.setdefault(r["received_by"], []).append(r["received_subject"])
    assert {a: sorted(s) for a, s in got.items()} == delivered


@needs_jar
def test_the_upgrade_report_counts_the_accounts_messages_under_the_rules_that_become_valid(spark, live):
    from pyspark.sql import functions as F

    from subjxform.reports import server_upgrade

    delivered, path = live
    a = _messages(spark).where(F.col("account") == "A")
    report = server_upgrade(a, path, "2.15.2", "2.15.3", account="A")
    # the rule whose destination 2.15.2 does not know (the other one's source is a literal token to it)
    assert list(report.facts["becomes_valid"]) == ["orders.*"]
    rows = [r.asDict() for r in report.df.collect()]
    # 2.15.2 refuses the config (its server does not start); 2.15.3 delivers what the live server delivered
    taken = [r for r in rows if r["rule"] is not None]
    assert {r["category"] for r in taken} == {"becomes_valid"}, rows
    assert sorted(r["example_after"] for r in taken) == ["got.q", "orders.NUmM6cRx.x"], rows
    # the same table on its own, installed for A, says the same
    alone = server_upgrade(a, MAPPINGS, "2.15.2", "2.15.3", account="A")
    assert alone.facts["becomes_valid"] == report.facts["becomes_valid"]


def test_the_command_line_with_account_maps_what_the_server_delivered(live):
    own = _published_mapped(live[0])
    for account in PUBLISHED:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "subjxform",
                "mapping",
                "--server-version",
                "2.15.3",
                "--account",
                account,
                "orders.*",
                MAPPINGS["orders.*"],
                "orders.x" if account == "A" else "orders.y",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == [s for s in own[account] if s.startswith("orders.")], account
    out = subprocess.run(
        [sys.executable, "-m", "subjxform", "mapping", "--server-version", "2.15.3", "orders.*", MAPPINGS["orders.*"]],
        capture_output=True,
        text=True,
        timeout=120,
        input="",
    )
    assert out.returncode == 1 and "no account was given" in out.stdout and "--account NAME" in out.stdout


def test_the_upgrade_check_lists_the_rules_that_become_valid_as_the_binaries_say(tmp_path):
    """From a release before the functions (2.15.2 where it is built, else the 2.15 line's, 2.15.1, which the set-up
    installs) to 2.15.3: the older binary's -t refuses the config and 2.15.3's takes it; validate --upgrade-to lists
    each account's rule and the top-level one (the global account's) as becoming valid."""
    built = os.path.join(ROOT, ".tools", "nats-server", "2.15.2", "bin", "nats-server")
    before, older = ("2.15.2", built) if os.access(built, os.X_OK) else ("2.15.1", BINARY.replace("2.15.3", "2.15"))
    conf = tmp_path / "server.conf"
    conf.write_text(
        'accounts { A: { mappings: { "orders.*": "orders.{{account-hash()}}.$1" } } }\n'
        'mappings { "top.*": "top.{{account-hash()}}.$1" }\n',
        encoding="utf-8",
    )
    verdicts = [
        subprocess.run([b, "-t", "-c", str(conf)], capture_output=True, timeout=60).returncode for b in (older, BINARY)
    ]
    assert verdicts[0] != 0 and verdicts[1] == 0
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "subjxform",
            "validate",
            "--server-version",
            before,
            "--upgrade-to",
            "2.15.3",
            str(conf),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert f"Upgrade from nats-server {before} to 2.15.3: 2 changes" in out.stdout, out.stdout
    changed = [line for line in out.stdout.splitlines() if "become valid" in line and "unknown function" in line]
    assert len(changed) == 2 and out.stdout.rstrip().endswith("2 become valid"), out.stdout


def _t_error(conf: str) -> str | None:
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write(conf)
    out = subprocess.run([BINARY, "-t", "-c", f.name], capture_output=True, text=True, timeout=60)
    os.unlink(f.name)
    return out.stderr.strip().split(" : ", 1)[-1] if out.returncode else None


@pytest.mark.parametrize(
    "dest",
    [
        "orders.{{account-hash(x)}}.{{wildcard(1)}}",
        "orders.{{account-hash-import()}}.{{wildcard(1)}}",
        "orders.{{account-hash-leaf-remote()}}.{{wildcard(1)}}",
        "orders.{{ Account-Hash( ) }}.{{wildcard(1)}}",
        "orders.x{{account-hash()}}.{{wildcard(1)}}",
    ],
)
def test_a_mapping_is_refused_or_taken_as_the_binary_does(dest):
    server = _t_error(f'accounts {{ A: {{ mappings: {{ "orders.*": "{dest}" }} }} }}')
    ours = mapping_table.validate_mappings({"orders.*": dest}, "2.15.3", account="A")
    errors = [p.message.split(" : ", 1)[-1] for p in ours if p.is_error]
    assert errors == ([server] if server else []), (dest, server, errors)


def test_a_stream_refuses_them_as_the_binary_does():
    with jetstream_server(BINARY) as port:
        client = NatsClient(port)
        try:
            r = client.request(
                "$JS.API.STREAM.CREATE.S1",
                {
                    "name": "S1",
                    "subjects": ["s1.*"],
                    "subject_transform": {"src": "s1.*", "dest": "t.{{account-hash()}}.$1"},
                },
            )
        finally:
            client.close()
    assert r["error"]["description"].endswith("function is not available in this context in {{account-hash()}}")
    with pytest.raises(subject_transform.InvalidTransform) as e:
        subject_transform.compile_transform("s1.*", "t.{{account-hash()}}.$1", server_version="2.15.3")
    assert r["error"]["description"].endswith(e.value.reason)
