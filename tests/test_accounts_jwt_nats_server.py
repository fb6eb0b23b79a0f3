"""Operator (JWT) mode against a real nats-server: accounts come from signed account JWTs preloaded in a
memory resolver. Their mappings use the JWT shape ({"subject", "weight", "cluster"}, a missing or 0 weight
meaning 100); their imports and exports use nats-io/jwt's fields. Skipped without nats-server."""

from __future__ import annotations

import base64
import json
import shutil

import pytest

nkeys = pytest.importorskip("nkeys")

from nats_jwt import Key, account_jwt, run_operator, server_config  # noqa: E402
from subjxform import subject_map, validate_mappings  # noqa: E402
from subjxform.accounts import AccountsConfigError, JwtSignatureError, accounts_plan, replay, verify_account_jwt  # noqa: E402

NATS = shutil.which("nats-server")
pytestmark = pytest.mark.skipif(NATS is None, reason="nats-server is not on PATH")


class Operator:
    """An operator, its system account, and accounts (name -> (key, JWT claims' nats part))."""

    def __init__(self):
        self.key, self.system = Key("operator"), Key("account")
        self.accounts: dict[str, Key] = {}
        self.jwts: dict[str, str] = {self.system.public: account_jwt(self.key, self.system, "SYS")}

    def account(self, name: str, **nats) -> str:
        key = self.accounts.setdefault(name, Key("account"))
        self.jwts[key.public] = account_jwt(self.key, key, name, **nats)
        return key.public

    def config(self) -> str:
        return server_config(self.key, self.system, self.jwts)


def deliveries_on_the_server(op: Operator, messages: list[tuple[str, str]]) -> set[tuple[int, str, str]]:
    def publish(clients):
        for i, (subject, account) in enumerate(messages):
            clients[account].publish(subject, i)

    received, _ = run_operator(NATS, op.config(), op.accounts, publish)  # a refused account: its user cannot connect
    return {(i, a, s) for a, got in received.items() for i, subjects in got.items() for s in subjects}


def deliveries_in_spark(session, config, messages) -> set[tuple[int, str, str]]:
    df = session.createDataFrame(
        [(i, s, a) for i, (s, a) in enumerate(messages)], "i int, subject string, account string"
    )
    return {(r.i, r.received_by, r.received_subject) for r in replay(df, config).collect()}


JWT_MAPPINGS = {
    "w": [{"subject": "w.one"}],  # no weight: 100
    "z": [{"subject": "z.one", "weight": 0}],  # weight 0: 100, not "never"
    "a.*": [{"subject": "b.$1", "weight": 100}],
    "c.*": [{"subject": "c.east.$1", "cluster": "east"}, {"subject": "c.any.$1"}],
}


def test_jwt_shaped_mappings_on_the_server_and_in_subject_map(session):
    op = Operator()
    op.account("A", mappings=JWT_MAPPINGS)
    messages = [(s, "A") for s in ["w", "z", "a.x", "c.y", "q"]]
    server = deliveries_on_the_server(op, messages)
    assert server == {(0, "A", "w.one"), (1, "A", "z.one"), (2, "A", "b.x"), (3, "A", "c.any.y"), (4, "A", "q")}
    # subject_map reads the JWT shape as it is (a dict or its JSON), with the server's 0 -> 100 rule
    df = session.createDataFrame([(s,) for s, _ in messages], "subject string")
    ours = df.select(subject_map("subject", JWT_MAPPINGS).alias("m")).collect()
    assert {(i, "A", r.m) for i, r in enumerate(ours)} == server
    assert validate_mappings(JWT_MAPPINGS, session) == []
    # and replaying the operator's whole config (resolver_preload) gives the same
    assert deliveries_in_spark(session, op.config(), messages) == server


def test_jwt_imports_and_exports_on_the_server_and_in_replay(session):
    op = Operator()
    a = op.account(
        "A",
        exports=[
            {"type": "stream", "subject": "foo.*"},
            {"type": "stream", "subject": "pre.>"},
            {"type": "service", "subject": "svc.*.*"},
        ],
        mappings={"raw.*": [{"subject": "foo.$1"}]},
    )
    op.account(
        "B",
        imports=[
            {"type": "stream", "account": a, "subject": "foo.*", "local_subject": "bar.$1"},
            {"type": "stream", "account": a, "subject": "pre.>", "to": "p"},  # deprecated `to`: a prefix
            {"type": "service", "account": a, "subject": "svc.*.*", "local_subject": "local.$2.$1"},
        ],
    )
    messages = [("foo.x", "A"), ("raw.y", "A"), ("pre.a.b", "A"), ("local.two.one", "B"), ("zzz", "A")]
    server = deliveries_on_the_server(op, messages)
    assert {(0, "B", "bar.x"), (1, "B", "bar.y"), (2, "B", "p.pre.a.b"), (3, "A", "svc.one.two")} <= server
    assert deliveries_in_spark(session, op.config(), messages) == server


def test_what_the_server_refuses_in_a_jwt_and_what_it_leaves_out(session):
    op = Operator()
    op.account("A", mappings={"a.*": [{"subject": "b.$2"}], "m": [{"subject": "m.one"}]})  # b.$2: left out
    messages = [("a.x", "A"), ("m", "A")]
    server = deliveries_on_the_server(op, messages)
    assert server == {(0, "A", "a.x"), (1, "A", "m.one")}
    plan = accounts_plan(session, op.config())
    assert any("wildcard index out of range" in p["message"] and p["severity"] == "warning" for p in plan["problems"])
    assert deliveries_in_spark(session, op.config(), messages) == server

    # Two entries without a weight count 200%: the JWT fails validation and the account is refused.
    refused = Operator()
    refused.account("A", mappings={"w": [{"subject": "w1"}, {"subject": "w2", "weight": 0}]})
    with pytest.raises((ConnectionError, OSError, RuntimeError)):  # -ERR 'Authorization Violation'
        deliveries_on_the_server(refused, [("w", "A")])
    with pytest.raises(AccountsConfigError, match=r"Mapping \"w\" exceeds 100% .*nats-server refuses the account"):
        accounts_plan(session, refused.config())


def test_nsc_describe_json_claims_read_like_the_jwt(session):
    op = Operator()
    a = op.account("A", exports=[{"type": "stream", "subject": "foo.*"}], mappings=JWT_MAPPINGS)
    op.account("B", imports=[{"type": "stream", "account": a, "subject": "foo.*", "local_subject": "bar.$1"}])
    jwts = [op.jwts[op.accounts[n].public] for n in ("A", "B")]
    claims = [json.loads(base64.urlsafe_b64decode(t.split(".")[1] + "==")) for t in jwts]  # nsc describe --json
    from_jwts = accounts_plan(session, "\n".join(jwts))
    assert accounts_plan(session, claims) == from_jwts
    assert [r["dest"] for r in from_jwts["routes"]] == ["bar.$1"]
    assert json.loads(from_jwts["accounts"][0]["mappings"]) == JWT_MAPPINGS


def test_a_signature_is_checked_and_a_tampered_token_refused():
    op = Operator()
    op.account("A", mappings={"w": [{"subject": "w.one"}]})
    token = op.jwts[op.accounts["A"].public]
    assert verify_account_jwt(token, trusted_keys=[op.key.public])["name"] == "A"
    header, body, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=="))
    claims["nats"]["mappings"] = {"w": [{"subject": "w.evil"}]}
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    with pytest.raises(JwtSignatureError, match="does not verify"):
        verify_account_jwt(f"{header}.{forged}.{signature}")
    with pytest.raises(JwtSignatureError, match="not one of the trusted keys"):
        verify_account_jwt(token, trusted_keys=[Key("operator").public])
