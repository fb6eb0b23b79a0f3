"""The checks of the public functions' arguments, one copy for both paths: the jar's column functions
(``subjxform.functions``) and the no-jar ones (``subjxform.portable``) take the same arguments and refuse a
wrong one with the same words, before Spark sees it, so that a wrong type is a TypeError naming the parameter
(the same with ANSI mode on and off), not a value Spark casts (``strict="yes"`` would be true, ``seed=1.9``
would be 1) or an analysis error about a generated expression. tests/test_signatures.py keeps the two APIs'
names, parameters and defaults equal.

No pyspark at import: ``subjxform sql`` builds SQL text with the portable path on Python alone."""

from __future__ import annotations

import numbers
import random
import sys

# Seeds for unseeded draws: a generator of their own, so that a user's random.seed() does not repeat them.
_random = random.Random()


def type_name(v: object) -> str:
    return type(v).__name__


def is_column(v: object) -> bool:
    """A Column, classic or Spark Connect; False when pyspark is not even imported (no Column can exist)."""
    if sys.modules.get("pyspark") is None:
        return False
    from ._compat import is_column as spark_column

    return spark_column(v)


def check_subject(c: object, name: str = "subject") -> None:
    """A column: its name (str) or a Column."""
    if not (isinstance(c, str) or is_column(c)):
        raise TypeError(f"{name} must be a column name (str) or a Column, not {type_name(c)}")


def check_value(v: object, name: str) -> None:
    """A str (a constant) or a Column (a value per row)."""
    if not (isinstance(v, str) or is_column(v)):
        raise TypeError(f"{name} must be a str (a constant) or a Column, not {type_name(v)}: {v!r}")


def check_strict(strict: object) -> bool:
    if not isinstance(strict, bool):
        raise TypeError(f"strict must be True or False, not {type_name(strict)}: {strict!r}")
    return strict


def check_seed(seed: object) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer (or None), not {type_name(seed)}: {seed!r}")
    if not -(2**63) <= int(seed) < 2**63:
        raise ValueError(f"seed must fit in a BIGINT (64 bits), got {seed}")
    return int(seed)


def draws_seed(seed: int | None, keyed: bool) -> int | None:
    """The draws' seed. Without a seed or a key, one is chosen here, once, when the column is built (as Spark's
    ``rand()`` does): every task of every query using the column, a rerun or a recomputed shuffle output
    included, then draws alike, so Spark's recovery neither loses nor doubles rows, and a DataFrame collected
    twice draws the same. With a key and no seed: None (the jar's default, 0: the draws are a pure function of
    the key)."""
    if seed is None and not keyed:
        return _random.getrandbits(64) - 2**63
    return seed


def check_server_version(server_version: object) -> str | None:
    """The type of ``server_version`` (a line such as '2.10', a release, or None); its value is the engine's to
    check (an unsupported line names the supported ones)."""
    if server_version is not None and not isinstance(server_version, str):
        raise TypeError(
            f"server_version must be a str such as '2.10' (or None), not {type_name(server_version)}: "
            f"{server_version!r}"
        )
    return server_version


def check_account(account: object) -> str | None:
    """The type of ``account``, the account a transform or table is installed for (its name; a public key in
    operator mode), or None; its value is the engine's to check ('' names none: grammar.account_functions'
    NO_ACCOUNT_NAME). nats-server
    2.14.10 and 2.15.3 put the hash of its name where a destination says ``{{account-hash()}}``."""
    if account is not None and not isinstance(account, str):
        raise TypeError(f"account must be a str naming an account (or None), not {type_name(account)}: {account!r}")
    return account


def check_mappings(mappings: object, table_types: tuple[type, ...] = (str, dict)) -> None:
    """A mapping table: a str (its text or a file's path), a dict in the JSON shape, or a Column."""
    if not (isinstance(mappings, table_types) or is_column(mappings)):
        raise TypeError(f"mappings must be a str, a dict or a Column, not {type_name(mappings)}")


def transform_pairs(transforms) -> list[tuple[str, str]]:
    """The (src, dest) pairs of a Python list of pairs or {"src", "dest"} dicts (a missing key is "", as
    nats-server reads the JSON), with a TypeError/ValueError naming the bad item."""
    if not isinstance(transforms, (list, tuple)):
        raise TypeError(
            f"transforms must be a list of (src, dest) pairs or {{'src', 'dest'}} dicts, or a Column, "
            f"not {type(transforms).__name__}"
        )
    pairs = []
    for i, t in enumerate(transforms):
        if isinstance(t, dict):
            unknown = sorted(set(t) - {"src", "dest"}, key=str)
            if unknown:
                raise ValueError(f"transforms[{i}]: unknown key(s) {unknown} (only 'src' and 'dest'): {t!r}")
            src, dest = t.get("src", ""), t.get("dest", "")
        elif isinstance(t, (list, tuple)):
            if len(t) != 2:
                raise ValueError(f"transforms[{i}]: a (src, dest) pair has 2 items, not {len(t)}: {t!r}")
            src, dest = t
        else:
            raise TypeError(
                f"transforms[{i}]: a (src, dest) pair or a {{'src', 'dest'}} dict, not {type(t).__name__}: {t!r}"
            )
        if not isinstance(src, str) or not isinstance(dest, str):
            raise TypeError(f"transforms[{i}]: src and dest must be strings, got {t!r}")
        pairs.append((src, dest))
    return pairs
