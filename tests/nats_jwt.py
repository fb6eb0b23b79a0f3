"""Operator-mode credentials for tests: nkeys and signed JWTs (operator, accounts, users), as `nsc` makes
them, with the `nkeys` package (ed25519). Test-only."""

from __future__ import annotations

import base64
import json
import os
import time

import nkeys


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Key:
    """A new nkey pair of one kind (operator, account, user)."""

    PREFIX = {
        "operator": nkeys.PREFIX_BYTE_OPERATOR,
        "account": nkeys.PREFIX_BYTE_ACCOUNT,
        "user": nkeys.PREFIX_BYTE_USER,
    }

    def __init__(self, kind: str):
        self.pair = nkeys.from_seed(nkeys.encode_seed(os.urandom(32), self.PREFIX[kind]))
        self.public = self.pair.public_key.decode()

    def sign(self, data: bytes) -> bytes:
        return self.pair.sign(data)


def encode(claims: dict, issuer: Key) -> str:
    """A JWT: ed25519-nkey header, the claims, the issuer's signature over both."""
    header = _b64(json.dumps({"typ": "JWT", "alg": "ed25519-nkey"}).encode())
    body = _b64(
        json.dumps({**claims, "iss": issuer.public, "iat": int(time.time()), "jti": _b64(os.urandom(16))}).encode()
    )
    return f"{header}.{body}.{_b64(issuer.sign(f'{header}.{body}'.encode()))}"


UNLIMITED = {
    "subs": -1,
    "data": -1,
    "payload": -1,
    "imports": -1,
    "exports": -1,
    "wildcards": True,
    "conn": -1,
    "leaf": -1,
}


def operator_jwt(operator: Key, system_account: Key) -> str:
    return encode(
        {
            "sub": operator.public,
            "name": "OP",
            "nats": {"type": "operator", "version": 2, "system_account": system_account.public},
        },
        operator,
    )


def account_jwt(operator: Key, account: Key, name: str, **nats) -> str:
    """`nats` holds the account's `mappings`, `exports`, `imports` as nats-io/jwt writes them."""
    return encode(
        {"sub": account.public, "name": name, "nats": {"type": "account", "version": 2, "limits": UNLIMITED, **nats}},
        operator,
    )


def user_jwt(account: Key, user: Key, name: str) -> str:
    return encode(
        {
            "sub": user.public,
            "name": name,
            "nats": {"type": "user", "version": 2, "pub": {}, "sub": {}, "subs": -1, "data": -1, "payload": -1},
        },
        account,
    )


def server_config(operator: Key, system_account: Key, accounts: dict[str, str]) -> str:
    """A memory resolver preloaded with the account JWTs ({public key: jwt})."""
    preload = "\n".join(f"  {key}: {jwt}" for key, jwt in accounts.items())
    return (
        f"operator: {operator_jwt(operator, system_account)}\nsystem_account: {system_account.public}\n"
        f"resolver: MEMORY\nresolver_preload: {{\n{preload}\n}}\n"
    )


def run_operator(binary: str, config: str, accounts: dict[str, Key], publish) -> tuple[dict[str, dict], str]:
    """nats_oracle.run_accounts with a user of each account (name -> its key) signed in by a user JWT."""
    from nats_oracle import RawClient, run_accounts

    def connect(port: int) -> dict:
        clients = {}
        for name, key in accounts.items():
            user = Key("user")
            clients[name] = RawClient("127.0.0.1", port, None, None, 30, jwt_auth=(user_jwt(key, user, "u"), user.sign))
        return clients

    return run_accounts(binary, config, connect, publish)
