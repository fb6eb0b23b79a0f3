"""nats-server's account scoped mapping functions (issue #8631; 2.14.10 and 2.15.3 on), as the jar's
``AccountFunctions`` (jvm/core/.../engine/AccountFunctions.scala): ``{{account-hash()}}``, ``{{account-hash-import()}}``,
``{{account-hash-leaf-remote()}}``. A server resolves each one once, when it installs the subject that holds it (an
account's mappings, an import's or export's subjects, a leaf node remote's), into its 8-character hash of an account
name; a transform that meets one unresolved (a stream's) refuses it."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from .destination_syntax import TOO_MANY_ARGS, TokenSyntaxError, canonical, in_token, looks_like_function
from .server_version import ServerVersion
from .subjects import tokens

NOT_AVAILABLE = "invalid mapping destination: function is not available in this context"

# An account given as '' (no server has an account by that name), where a function or command takes one.
NO_ACCOUNT_NAME = "an account is named by its name (its public key in operator mode), not ''"


@dataclass(frozen=True)
class Context:
    """The accounts the functions hash where a subject is installed (AccountFunctions.Context): "" means the function
    is not available there (nats-server's words), None that the account is not known here (none was given)."""

    account: str | None
    import_account: str | None = ""
    leaf_remote: str | None = ""


NO_ACCOUNT = Context(None, None, None)


def _pattern(words: str) -> re.Pattern[str]:
    body = "-".join(f"[{w[0].lower()}{w[0].upper()}]" + re.escape(w[1:]) for w in words.split("-"))
    return re.compile(r"\{\{[\t\n\f\r ]*" + body + r"[\t\n\f\r ]*\((.*)\)[\t\n\f\r ]*\}\}")


# nats-server's order of trial
_FUNCTIONS = (
    (_pattern("account-hash-import"), lambda c: c.import_account, "account-hash-import"),
    (_pattern("account-hash-leaf-remote"), lambda c: c.leaf_remote, "account-hash-leaf-remote"),
    (_pattern("account-hash"), lambda c: c.account, "account-hash"),
)
_ARG_SEPARATOR = re.compile(r",[\t\n\f\r ]*")
_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def is_account_function(canonical_token: str) -> bool:
    return looks_like_function(canonical_token) and any(p.search(canonical_token) for p, _, _ in _FUNCTIONS)


def account_hash(name: str) -> str:
    """nats-server's getHash: the first 8 bytes of the name's SHA-256, each as a base-62 digit. "A" -> "NUmM6cRx"."""
    return "".join(_DIGITS[b % 62] for b in hashlib.sha256(name.encode("utf-8")).digest()[:8])


def expand(subject: str, context: Context, version: ServerVersion) -> str:
    """The subject with each account function token replaced by its hash, as a server of `version` installs it; the
    subject itself on a release without the functions. Raises TokenSyntaxError in nats-server's words."""
    if not version.account_functions or subject is None or ("{{" not in subject and "<<" not in subject):
        return subject
    toks = list(tokens(subject))
    changed = False
    for i, token in enumerate(toks):
        t = canonical(token)
        if not looks_like_function(t):
            continue
        for pattern, account_of, name in _FUNCTIONS:
            m = pattern.search(t)
            if not m:
                continue
            args = _ARG_SEPARATOR.split(m.group(1))
            if len(args) > 1 or args[0].strip():
                raise TokenSyntaxError(in_token(TOO_MANY_ARGS, token))
            account = account_of(context)
            if account is None:
                raise TokenSyntaxError(
                    f"{{{{{name}()}}}} is the hash of an account's name, and no account was given: it resolves only for a "
                    "known account (its mappings in a server config or an account JWT; a function's account => 'NAME', "
                    "the command line's --account NAME)"
                )
            if not account:
                raise TokenSyntaxError(in_token(NOT_AVAILABLE, token))
            toks[i] = account_hash(account)
            changed = True
            break
    return ".".join(toks) if changed else subject
