"""Accounts, exports and imports against a real nats-server: the same config is loaded by the server and
by `replay`; every message is published through the server in its account, every account listens on `>`,
and what each account receives must be the deliveries `replay` computes. Skipped without nats-server."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from nats_oracle import RawClient, run_accounts
from subjxform.accounts import AccountsConfigError, accounts_plan, replay

NATS = shutil.which("nats-server")
pytestmark = pytest.mark.skipif(NATS is None, reason="nats-server is not on PATH")


def with_users(accounts: dict[str, str]) -> str:
    """An `accounts { }` block: each account's settings plus a user u_<name>/p_<name>."""
    body = "\n".join(
        f"  {name}: {{ users: [{{user: u_{name}, password: p_{name}}}]\n    {settings}\n  }}"
        for name, settings in accounts.items()
    )
    return f"accounts {{\n{body}\n}}\n"


def deliveries_on_the_server(config: str, messages: list[tuple[str, str]]) -> set[tuple[int, str, str]]:
    """(message index, receiving account, subject) for everything the accounts' `>` subscribers receive."""
    accounts = sorted({a for _, a in messages} | set(ACCOUNTS_IN(config)))

    def connect(port: int) -> dict:
        return {a: RawClient("127.0.0.1", port, f"u_{a}", f"p_{a}", 30) for a in accounts}

    def publish(clients) -> None:
        for i, (subject, account) in enumerate(messages):
            clients[account].publish(subject, i)

    received, _ = run_accounts(NATS, config, connect, publish)
    return {(i, a, s) for a, got in received.items() for i, subjects in got.items() for s in subjects}


def ACCOUNTS_IN(config: str) -> list[str]:
    return [line.split(":")[0].strip() for line in config.splitlines() if "users: [{user: u_" in line]


def deliveries_in_spark(session, config: str, messages: list[tuple[str, str]]) -> set[tuple[int, str, str]]:
    df = session.createDataFrame(
        [(i, s, a) for i, (s, a) in enumerate(messages)], "i int, subject string, account string"
    )
    return {(r.i, r.received_by, r.received_subject) for r in replay(df, config).collect()}


# Each import and export form; the messages exercise each (and some that must not pass).
FORMS = {
    "stream import renamed by `to`": (
        {
            "A": 'exports: [{stream: "foo.*.*"}]',
            "B": 'imports: [{stream: {account: A, subject: "foo.*.*"}, to: "bar.$2.$1"}]',
        },
        [("foo.x.y", "A"), ("foo.x", "A"), ("bar.y.x", "B")],
    ),
    "stream import with a prefix": (
        {
            "A": 'exports: [{stream: "foo.>"}]',
            "B": 'imports: [{stream: {account: A, subject: "foo.>"}, prefix: from_a}]',
        },
        [("foo.x", "A"), ("foo.a.b", "A"), ("other", "A")],
    ),
    "stream import of a narrower subject, unchanged": (
        {"A": 'exports: [{stream: "foo.>"}]', "B": 'imports: [{stream: {account: A, subject: "foo.a.*"}}]'},
        [("foo.a.1", "A"), ("foo.b.1", "A")],
    ),
    "stream import of a literal subject renamed to a literal": (
        {"A": 'exports: [{stream: "news"}]', "B": 'imports: [{stream: {account: A, subject: "news"}, to: "a_news"}]'},
        [("news", "A"), ("news.x", "A")],
    ),
    "exporter's mappings apply before the export, importer's not to imported messages": (
        {
            "A": 'exports: [{stream: "foo.*"}]\n    mappings: { "raw.*": "foo.$1", "foo.q": "foo.mapped" }',
            "B": 'imports: [{stream: {account: A, subject: "foo.*"}, to: "bar.$1"}]\n    mappings: { "bar.*": "mine.$1" }',
        },
        [("raw.x", "A"), ("foo.q", "A"), ("foo.z", "A"), ("bar.z", "B")],
    ),
    "service import run in reverse": (
        {
            "A": 'exports: [{service: "svc.*.*"}]',
            "B": 'imports: [{service: {account: A, subject: "svc.*.*"}, to: "local.$2.$1"}]',
        },
        [("local.two.one", "B"), ("svc.one.two", "B"), ("local.x", "B")],
    ),
    "service import of three wildcards rotated (nats-server reverses it by reusing the placeholders)": (
        {
            "A": 'exports: [{service: "s.*.*.*"}]',
            "B": 'imports: [{service: {account: A, subject: "s.*.*.*"}, to: "l.$2.$3.$1"}]',
        },
        [("l.a.b.c", "B")],
    ),
    "service import without `to`, and the exporter's mappings after it": (
        {
            "A": 'exports: [{service: "req.>"}]\n    mappings: { "req.v1.*": "req.v2.$1" }',
            "B": 'imports: [{service: {account: A, subject: "req.>"}}]',
        },
        [("req.v1.x", "B"), ("req.other", "B"), ("nope", "B")],
    ),
    "private exports and the account token position": (
        {
            "A": 'exports: [{stream: "p.*", accounts: [B]}, {stream: "t.*", account_token_position: 2}]',
            "B": 'imports: [{stream: {account: A, subject: "p.*"}}, {stream: {account: A, subject: "t.B"}, to: "tok"}]',
            "C": 'imports: [{stream: {account: A, subject: "t.C"}}]',
        },
        [("p.1", "A"), ("t.B", "A"), ("t.C", "A"), ("t.D", "A")],
    ),
    "two importers of one export, one with a mapping of its own publishes": (
        {
            "A": 'exports: [{stream: "ev.>"}]',
            "B": 'imports: [{stream: {account: A, subject: "ev.>"}, prefix: b}]',
            "C": 'imports: [{stream: {account: A, subject: "ev.*"}, to: "c.$1"}]\n    mappings: { "ev.*": "own.$1" }',
        },
        [("ev.1", "A"), ("ev.1.2", "A"), ("ev.1", "C")],
    ),
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_replay_delivers_what_the_server_delivers(session, name):
    accounts, messages = FORMS[name]
    config = with_users(accounts)
    server = deliveries_on_the_server(config, messages)
    assert deliveries_in_spark(session, config, messages) == server


def test_what_the_server_does_with_each_form(session):
    """The observations the README and SPEC state, pinned on the server itself."""

    def got(name):
        accounts, messages = FORMS[name]
        return deliveries_on_the_server(with_users(accounts), messages)

    assert (0, "B", "bar.y.x") in got("stream import renamed by `to`")
    assert (0, "B", "from_a.foo.x") in got("stream import with a prefix")
    reverse = got("service import run in reverse")
    assert (0, "A", "svc.one.two") in reverse and not any(a == "A" for i, a, _ in reverse if i == 1)
    # Not the inverse: l.a.b.c would come from s.c.a.b, but the server delivers s.b.c.a.
    assert (0, "A", "s.b.c.a") in got(
        "service import of three wildcards rotated (nats-server reverses it by reusing the placeholders)"
    )
    mapped = got("exporter's mappings apply before the export, importer's not to imported messages")
    assert {(0, "B", "bar.x"), (1, "B", "bar.mapped"), (3, "B", "mine.z")} <= mapped
    assert (2, "B", "bar.z") in mapped and (2, "B", "mine.z") not in mapped


def test_a_config_the_server_refuses_is_refused_with_its_words(session, tmp_path):
    config = with_users(
        {
            "A": 'exports: [{stream: "foo.*.*"}]',
            "B": 'imports: [{stream: {account: A, subject: "foo.*.*"}, to: "bar.$1"}]',
        }
    )
    path = tmp_path / "server.conf"
    path.write_text("port: -1\n" + config)
    theirs = subprocess.run([NATS, "-t", "-c", str(path)], capture_output=True, text=True, timeout=30)
    assert theirs.returncode != 0
    with pytest.raises(AccountsConfigError) as ours:
        accounts_plan(session, path)
    reason = theirs.stderr.strip().split(": ", 2)[-1]
    assert reason.startswith('Error adding stream import "foo.*.*": failed to create mapping transform')
    assert str(ours.value) == f"{path}:7: accounts.B.imports[0]: {reason}"


def test_the_readme_example_is_what_the_server_does(session):
    import re

    from conftest import ROOT

    readme = (ROOT / "docs" / "guides" / "accounts.md").read_text()  # the example moved from README.md
    block = re.search(r"```python\n(from subjxform.accounts import replay\n.*?)```", readme, re.S).group(1)
    config = re.search(r'config = """(.*?)"""', block, re.S).group(1)
    rows = block[block.index("createDataFrame(") : block.index('"subject string')]
    messages = re.findall(r'\("([^"]+)", "(\w+)"\)', rows)
    # the same accounts, with a user each so that the test can publish in them
    served = re.sub(
        r"^  (\w+): \{$",
        lambda m: f"  {m.group(1)}: {{ users: [{{user: u_{m.group(1)}, password: p_{m.group(1)}}}]",
        config,
        flags=re.M,
    )
    assert served != config and len(messages) == 4
    assert deliveries_on_the_server(served, messages) == deliveries_in_spark(session, config, messages)
