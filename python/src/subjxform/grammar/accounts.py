"""The accounts of a nats-server config, read as the jar's ``Accounts`` (jvm/core/.../config/Accounts.scala) reads
them, for what the Python side needs without the JVM (``subjxform sql``, the reports' choice of a table): each
account's name, the id nats-server knows it by (in operator mode its JWT's public key), its mappings block as
written and the source a server loads it from (a config file's block, an account JWT's claim:
``mapping_table.CONFIG_FILE`` / ``ACCOUNT_JWT``). A port of its reading (``fromServerConfig``'s accounts, the
operator mode's ``resolver_preload``, ``fromJwts``, ``decodeJwt``, ``looksLikeJwts``), not of its checks of
exports and imports: those are the jar's ``accounts_plan``. A text only: no ``include``, no environment."""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass

from .conf_syntax import parse_document, parse_mappings
from .conf_value import Arr, ConfSyntaxError, Obj, Str, conf_text
from .go_bytes import go_lower
from .go_quote import go_quote
from .mapping_table import ACCOUNT_JWT, CONFIG_FILE

GLOBAL_ACCOUNT = "$G"

_JWT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Account:
    """One account: ``name`` (the config's, or the JWT's ``name`` claim), ``id`` (what nats-server names it by:
    the config's name, or the JWT's subject, the account's public key), its mappings block (None: none) and
    the source a server loads that block from."""

    name: str
    id: str
    mappings: Obj | None
    source: str


def looks_like_jwts(text: str) -> bool:
    """Whether the text is account JWTs (separated by white space) or their claims, not a server config."""
    t = text.strip()
    if not t:
        return False
    if all(_JWT.fullmatch(w) for w in t.split()):
        return True
    try:
        o = json.loads(t)
    except ValueError:
        return t.startswith("[") and '"nats"' in t
    items = o if isinstance(o, list) else [o]
    return all(isinstance(c, dict) and isinstance(c.get("nats"), dict) and "sub" in c for c in items)


def is_whole_config(text: str) -> bool:
    """Whether a text is more than one mappings block: account JWTs or their claims, or a whole nats-server
    config (accounts, in operator mode the JWTs of its ``resolver_preload``, or top-level mappings beside other
    settings), whose blocks are then picked as nats-server holds them (:func:`find_account`). A text that cannot
    be read is not (the table's own check says what is wrong with it)."""
    if looks_like_jwts(text):
        return True
    try:
        doc = parse_document(text)
    except ConfSyntaxError:
        return False
    top = _entry(doc, "mappings")
    return (
        _entry(doc, "accounts") is not None
        or _entry(doc, "resolver_preload") is not None
        or (isinstance(top, Obj) and len(doc.entries) > 1)
    )


def decode_jwt(token: str) -> dict:
    """The claims of one JWT (its middle part, base64url JSON)."""
    parts = token.strip().split(".")
    if len(parts) != 3:
        raise ConfSyntaxError(f"not a JWT (three parts separated by '.'): {go_quote(token[:40])}")
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (binascii.Error, ValueError) as e:
        raise ConfSyntaxError("a JWT's claims are not base64url JSON") from e
    if not isinstance(claims, dict):
        raise ConfSyntaxError("a JWT's claims are not a JSON object")
    return claims


def _from_claims(claims: dict) -> Account:
    def text(v: object) -> str:
        return v if isinstance(v, str) else ""

    key = text(claims.get("sub"))
    name = text(claims.get("name")) or key
    nats = claims.get("nats")
    mappings = nats.get("mappings") if isinstance(nats, dict) else None
    block = None
    if isinstance(mappings, dict):
        # As nats-io/jwt decodes an entry: its subject, weight and cluster (any other field is not read).
        read = {
            rule: [
                {k: v for k, v in e.items() if k in ("subject", "weight", "cluster")} if isinstance(e, dict) else e
                for e in entries
            ]
            if isinstance(entries, list)
            else entries
            for rule, entries in mappings.items()
        }
        block = parse_mappings(conf_text(read)) if read else Obj((), (), 1)
    return Account(name, key, block, ACCOUNT_JWT)


def _from_jwts(text: str) -> list[Account]:
    t = text.strip()
    if not t.startswith(("{", "[")):
        return [_from_claims(decode_jwt(w)) for w in t.split()]
    o = json.loads(t)
    items = o if isinstance(o, list) else [o]
    return [_from_claims(decode_jwt(c) if isinstance(c, str) else c) for c in items]


def _entry(o: Obj, name: str):
    return next((v for k, v in o.entries if go_lower(k) == name), None)


def accounts_of(text: str) -> list[Account]:
    """Every account of a config's text (its ``accounts``, or in operator mode the JWTs of its
    ``resolver_preload``; the top-level mappings as ``$G``), or of account JWTs or their claims."""
    if looks_like_jwts(text):
        return _from_jwts(text)
    doc = parse_document(text)
    out = []
    top = next((v for k, v in doc.entries if go_lower(k) in ("mappings", "maps") and isinstance(v, Obj)), None)
    preload = _entry(doc, "resolver_preload")
    accounts = _entry(doc, "accounts")
    if isinstance(preload, Obj) and accounts is None:
        out += [_from_claims(decode_jwt(v.value)) for _, v in preload.entries if isinstance(v, Str)]
    elif isinstance(accounts, Obj):
        for name, v in accounts.entries:
            if isinstance(v, Obj) and name not in accounts.used_variables:
                block = next(
                    (m for k, m in v.entries if go_lower(k) in ("mappings", "maps") and isinstance(m, Obj)), None
                )
                out.append(Account(name, name, block, CONFIG_FILE))
    elif isinstance(accounts, Arr):
        out += [Account(v.value, v.value, None, CONFIG_FILE) for v in accounts.items if isinstance(v, Str)]
    if top is not None:
        out.append(Account(GLOBAL_ACCOUNT, GLOBAL_ACCOUNT, top, CONFIG_FILE))
    return out


def find_account(accounts: list[Account], account: str | None) -> Account:
    """The account named by its name or its id (a JWT's public key); None: the top-level block (``$G``) when
    there is one, else the only account with mappings. A ValueError naming the accounts with mappings when
    there is no such account, or no way to choose."""
    with_mappings = [a for a in accounts if a.mappings is not None]

    def listed() -> str:  # (the top-level block is no account one picks by name)
        names = [a.name if a.name == a.id else f"{a.name} ({a.id})" for a in with_mappings if a.id != GLOBAL_ACCOUNT]
        return ", ".join(names) if names else "none"

    if account is None:
        top = [a for a in with_mappings if a.id == GLOBAL_ACCOUNT]
        if top:
            return top[0]
        if len(with_mappings) == 1:
            return with_mappings[0]
        raise ValueError(
            "the config has no top-level mappings block and "
            + ("no account with one" if not with_mappings else "several accounts with one")
            + f" (accounts with mappings: {listed()}): name one by its name or public key"
        )
    found = [a for a in accounts if account in (a.name, a.id)]
    if len(found) > 1:
        raise ValueError(
            f"account {account!r} names {len(found)} accounts ({', '.join(a.id for a in found)}): name it by its "
            "public key"
        )
    if not found:
        raise ValueError(f"the config has no account {account!r} (accounts with mappings: {listed()})")
    if found[0].mappings is None:
        raise ValueError(f"account {account!r} has no mappings block (accounts with mappings: {listed()})")
    return found[0]
