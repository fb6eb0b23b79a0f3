"""One rule for every argument that takes a whole config (``accounts_plan``, ``replay``,
``server_from_config``, ``stream_plan``, ``stream_messages``, ``scopes.stream``) or a mappings table
(``subject_map``, ``subject_map_explain`` and their ``subjxform.portable`` forms):

- a ``pathlib.Path`` (any ``os.PathLike``), or a ``str`` that names an existing file, is read from that
  file (a server config's ``include`` files and environment variables are then found as nats-server
  finds them, relative to it);
- any other ``str`` is the config's text (nats-server syntax or JSON);
- a dict (or a list, for account JWT claims) is JSON.

A config text never names an existing file in practice, so the rule does not guess; a str that looks
like a file name but names none is read as text, and its error says that no such file exists.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Mapping
from typing import Any, Union

Config = Union[str, "os.PathLike[str]", Mapping[str, Any], list]

# A one-line str ending in a config file's usual extension: what a mistyped path looks like.
_FILE_NAME = re.compile(r"[^\s{}\[\]:=\"']+\.(?:conf|cfg|json|txt|jwt|creds)")


def config_text(config: Config) -> tuple[str, str | None]:
    """The config's text and, when it was read from a file, that file's absolute path.

    One rule for every function that takes a whole config: a ``pathlib.Path``, or a one-line str that
    names an existing file, is read from that file; any other str is the config's text; a dict or list
    (JWT claims, a stream config) is sent as JSON.

    Args:
        config: a config text, a path, or a dict or list.

    Returns:
        ``(text, path)``: the text, and the file's absolute path (None for a text, dict or list).

    Raises:
        TypeError: a config of another type.
        OSError: a file that cannot be read.

    Examples:
        >>> config_text({"name": "ORDERS"})
        ('{"name": "ORDERS"}', None)
    """
    if isinstance(config, os.PathLike) or (isinstance(config, str) and "\n" not in config and os.path.isfile(config)):
        path = os.fspath(config)
        # every byte as nats-server reads it: a byte that is no UTF-8 is kept (escaped), not an error
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read(), os.path.abspath(path)
    if isinstance(config, str):
        return config, None
    if isinstance(config, (Mapping, list)):
        return json.dumps(config), None
    raise TypeError(f"config must be a config text, a path or a dict, got {type(config).__name__}")


def missing_file_note(config: Config) -> str:
    """For the error of a config that could not be read: a note when it was a str that looks like a
    path to a file that does not exist (it was read as config text).

    Args:
        config: the config as it was given.

    Returns:
        The note, starting with a space, or ``""``.

    Examples:
        >>> missing_file_note("sever.conf")
        " (there is no file 'sever.conf': a str is read as a file only when it names one, else as config text)"
    """
    # (A str naming an existing file was read from it: its error is the file's, with nothing to add.)
    if isinstance(config, str) and _FILE_NAME.fullmatch(config.strip()) and not os.path.isfile(config):
        return f" (there is no file {config.strip()!r}: a str is read as a file only when it names one, else as config text)"
    return ""


def mappings_argument(mappings):
    """A ``mappings`` argument as the config rule reads it: a path (``os.PathLike``, or a str naming an
    existing file) gives the file's text; a str that looks like a file name but names none is a ValueError
    that says so (read as a table, it would fail with a parse error about its first character); anything
    else (the table's text, a dict, a Column) is returned as it is."""
    if isinstance(mappings, os.PathLike) or (
        isinstance(mappings, str) and "\n" not in mappings and os.path.isfile(mappings)
    ):
        return config_text(mappings)[0]
    if isinstance(mappings, str) and _FILE_NAME.fullmatch(mappings.strip()):
        raise ValueError(
            f"mappings {mappings.strip()!r} looks like a file name, but there is no such file: mappings "
            "is the table's text (or a dict); a path (a pathlib.Path, or a str naming an existing "
            "file) is read"
        )
    return mappings


# A partition by zero, as nats-server's pattern reads a function token (only the first letter's case varies).
_BY_ZERO = re.compile(r"(?:\{\{|<<)\s*[pP]artition\s*\(\s*0*\s*[,)]")


def check_table(cluster, mappings, server_version=None, account: str | None = None) -> None:
    """Warnings about a constant table of subject_map (and subject_map_explain), before the function reads it:

    - ``cluster`` given as a str when the table scopes destinations to clusters and ``cluster`` is none of them
      (see mapping_table.unknown_cluster_note);
    - a table in an account JWT's shape whose rules the release (``server_version``, else the newest) refuses:
      as its server, the function loads the table without them (the warning names each, with the reason);
    - a destination on which the release's server process exits (2.10/2.11 on ``{{partition(0,...)}}``): the
      function gives NULL, the server goes down.

    The notes read the table with the grammar's reader, which reads it as the jar's does (both are nats-server's
    ``conf``, compared on a million documents); still, where the jar is the reader, a table the grammar's fails
    on must not fail the call: the function's own reader reports the table's errors."""
    if not isinstance(mappings, (str, dict)):
        return
    from .grammar.mapping_table import load_mappings, unknown_cluster_note
    from .grammar.server_version import NEWEST

    try:
        notes = [unknown_cluster_note(cluster, mappings, server_version)] if isinstance(cluster, str) else []
        # Read again only a table that can have either (a JWT's entries, a partition by zero): a big config
        # table costs its reading once, in the function.
        text = mappings if isinstance(mappings, str) else repr(mappings)
        load = (
            load_mappings(mappings, server_version, account=account)
            if "subject" in text or _BY_ZERO.search(text)
            else None
        )
    except Exception:  # noqa: BLE001 - only notes: the function called next reads the table and says what is wrong
        return
    if load is not None and not load.refused:
        version = server_version if server_version is not None else NEWEST.name
        notes += [
            f"rule {rule!r}: {reason}: nats-server {version} loads the account without this rule (an account JWT's "
            "table: the other rules apply)"
            for rule, reason in load.left_out
        ]
        notes += [p.message + f" (rule {p.rule!r})" for p in load.crashes]
    for note in notes:
        if note:
            warnings.warn(note, UserWarning, stacklevel=3)
