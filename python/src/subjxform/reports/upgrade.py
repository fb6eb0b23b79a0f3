"""Server upgrade: one table on two nats-server releases, as each release's server loads it (a config file's
block whole, an account JWT's rule by rule), the rules whose fate changes and, per rule, the messages whose
delivered subject changes."""

from __future__ import annotations

import warnings

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from subjxform.configs import Config, mappings_argument
from subjxform.functions import ColumnOrName, MappingsValue, _column, subject_map_explain
from subjxform.grammar import server_version as versions
from subjxform.grammar.accounts import Account, find_account, is_whole_config
from subjxform.grammar.conf_syntax import parse_mappings
from subjxform.grammar.mapping_table import ACCOUNT_JWT, MappingLoad, load_mappings, mappings_text

from ._query import cluster_column
from ._render import Report, Table, category_bars, cell

UPGRADE_CATEGORIES = (
    "crashes_after",
    "crashes_before",
    "becomes_invalid",
    "becomes_valid",
    "changed",
    "newly_dropped",
    "newly_delivered",
    "unchanged",
)
COLORS = {
    "crashes_after": "#67001f",
    "crashes_before": "#fdae61",
    "becomes_invalid": "#b2182b",
    "becomes_valid": "#1b7837",
    "changed": "#d95f02",
    "newly_dropped": "#e7298a",
    "newly_delivered": "#2a7ab9",
    "unchanged": "#999999",
}
SCHEMA = (
    "category STRING, rule_index INT, rule STRING, messages BIGINT, "
    "example_subject STRING, example_before STRING, example_after STRING, "
    "error_before STRING, error_after STRING"
)


def _table(spark, mappings, account: str | None, releases: tuple[str, str]) -> tuple[str, str | None]:
    """The table the servers apply and the account it is installed for (whose hash ``{{account-hash()}}`` is):
    ``mappings`` itself, installed for ``account``; or in a whole server config (or account JWTs) ``account``'s
    block as written (its name or public key; None: the top-level block, ``$G``'s, else the only account's) and
    that account's id, read by the accounts reader (nats-server's checks of the whole file; a path's includes
    too) of the first of ``releases`` that takes the config: a config the old release refuses (a function it does
    not know) is the new one's to read, and the report says what the old one refuses."""
    text = mappings_argument(mappings)
    if not isinstance(text, (str, dict)):
        raise TypeError(f"mappings must be a table (a str or a dict) or a config, not {type(text).__name__}")
    if isinstance(text, str) and is_whole_config(text):
        from subjxform.accounts import AccountsConfigError, accounts_plan

        config: Config = mappings  # a path keeps its folder: the config's includes are read from it
        try:
            plan = accounts_plan(spark, config, releases[0])
        except AccountsConfigError:
            try:
                plan = accounts_plan(spark, config, releases[1])
            except AccountsConfigError:
                plan = accounts_plan(spark, config, releases[0])  # refused by both: the old release's words
        accounts = [
            Account(a["name"], a["id"], None if a["mappings"] is None else parse_mappings(a["mappings"]), "")
            for a in plan["accounts"]
        ]
        chosen = find_account(accounts, account).id
        return {a["id"]: a["mappings"] for a in plan["accounts"]}[chosen], chosen
    return mappings_text(text), account


class _Loaded:
    """What one release loads of the table (the grammar's MappingTable.load: the jar's checks and texts, so the
    report needs no JVM of its own and runs under Spark Connect as in a classic session): the errors by rule
    (None: the text as a whole) that make its server refuse the table (a config file's: the server does not
    start) or the account (a JWT's claims), the rules it leaves out of a JWT's account, the destinations its
    process exits on."""

    def __init__(self, table: str, version: str, account: str | None):
        self.version = version
        # ValueError: an unsupported line
        self.load: MappingLoad = load_mappings(table, versions.parse(version), account=account)
        self.errors: dict[str | None, str] = {}
        for p in self.load.problems:
            if p.is_error:
                self.errors.setdefault(p.rule, p.message)
        self.left_out = dict(self.load.left_out)
        self.crashes: dict[str | None, str] = {}
        for p in self.load.crashes:
            self.crashes.setdefault(p.rule, p.message)

    @property
    def accepted(self) -> bool:
        return not self.load.refused


def _category(before: Column, after: Column) -> Column:
    # A crash first: the release's server process exits on the message (2.10/2.11 on {{partition(0,...)}}),
    # and every later message of every account is lost with it. A NULL result otherwise is a message the
    # server does not deliver: dropped by a weight or for an empty token.
    return (
        F.when(after["outcome"] == "crash", "crashes_after")
        .when(before["outcome"] == "crash", "crashes_before")
        .when(before["result"].eqNullSafe(after["result"]), "unchanged")
        .when(after["result"].isNull(), "newly_dropped")
        .when(before["result"].isNull(), "newly_delivered")
        .otherwise("changed")
    )


def _query(messages, table, account, before: _Loaded, after: _Loaded, subject, cluster, seed, key) -> list:
    """Per (rule, category): the messages and the smallest example (subject, before, after). Each release's
    subject_map_explain loads the table as that release does (the table's shape says from where). A table one
    release refuses whole (a config file's) is refused by its server: its messages are counted on the other
    release alone."""
    cl = cluster_column(cluster, messages)

    def explained(version: str) -> Column:
        with warnings.catch_warnings():  # (the rules left out and the crashes are the report's own lines)
            warnings.simplefilter("ignore", UserWarning)
            return subject_map_explain(subject, table, cl, seed, key, version, account)

    if before.accepted and after.accepted:
        both = messages.select(
            _column(subject).alias("subject"),
            explained(before.version).alias("before"),
            explained(after.version).alias("after"),
        ).where(F.col("before").isNotNull())
        category = _category(F.col("before"), F.col("after"))
        # A rule one release leaves out of the account: its messages under the rule that takes them where it is.
        rule_index = F.coalesce(F.col("before.rule_index"), F.col("after.rule_index"))
        rule = F.coalesce(F.col("before.rule"), F.col("after.rule"))
        before_result, after_result = F.col("before.result"), F.col("after.result")
    elif before.accepted or after.accepted:
        valid = before if before.accepted else after
        both = messages.select(_column(subject).alias("subject"), explained(valid.version).alias("x")).where(
            F.col("x").isNotNull()
        )
        category = F.lit("becomes_invalid" if valid is before else "becomes_valid")
        rule_index, rule = F.col("x.rule_index"), F.col("x.rule")
        nothing = F.lit(None).cast("string")
        before_result, after_result = (F.col("x.result"), nothing) if valid is before else (nothing, F.col("x.result"))
    else:
        return []
    rows = (
        both.groupBy(rule_index.alias("rule_index"), rule.alias("rule"), category.alias("category"))
        .agg(
            F.count(F.lit(1)).alias("messages"),
            F.min(F.struct(F.col("subject"), before_result.alias("before"), after_result.alias("after"))).alias(
                "example"
            ),
        )
        .collect()
    )
    return sorted(
        rows,
        key=lambda r: (UPGRADE_CATEGORIES.index(r["category"]), -1 if r["rule_index"] is None else r["rule_index"]),
    )


def _rows(counted: list, before: _Loaded, after: _Loaded) -> list[tuple]:
    """The report's rows (SCHEMA), and a row for each rule whose verdict changes with no message to show."""
    rows = [
        (
            r["category"],
            r["rule_index"],
            r["rule"],
            r["messages"],
            r["example"]["subject"],
            r["example"]["before"],
            r["example"]["after"],
            before.errors.get(r["rule"]) or before.left_out.get(r["rule"]),
            after.errors.get(r["rule"]) or after.left_out.get(r["rule"]),
        )
        for r in counted
    ]
    shown = {(c, r) for c, _, r, *_ in rows}
    for rule in sorted(set(before.errors) ^ set(after.errors), key=str):
        change = "becomes_valid" if rule in before.errors else "becomes_invalid"
        if (change, rule) not in shown:
            rows.append((change, None, rule, 0, None, None, None, before.errors.get(rule), after.errors.get(rule)))
    return rows


def _facts(rows: list[tuple], before: _Loaded, after: _Loaded) -> dict:
    totals = {c: 0 for c in UPGRADE_CATEGORIES}
    for c, _, _, m, *_ in rows:
        totals[c] += m
    return {
        "total": sum(totals.values()),
        "totals": totals,
        "source": before.load.source,
        "becomes_invalid": {r: e for r, e in after.errors.items() if r not in before.errors},
        "becomes_valid": {r: e for r, e in before.errors.items() if r not in after.errors},
        # an account JWT's rules one release leaves out of the account and the other loads
        "becomes_loaded": {r: e for r, e in before.left_out.items() if r not in after.left_out},
        "becomes_left_out": {r: e for r, e in after.left_out.items() if r not in before.left_out},
        "crashes_before": before.crashes,
        "crashes_after": after.crashes,
        "by_rule": {(c, r): m for c, _, r, m, *_ in rows},
    }


def _rule_text(i, r, messages=0) -> str:
    if r is None:  # messages no rule takes, or an error of the table as a whole
        return "(no rule)" if messages else "(the table)"
    return r if i is None else f"{i}: {r}"


def _text(rows: list[tuple], facts: dict, from_version: str, to_version: str) -> list:
    parts: list = [f"Server upgrade {from_version} -> {to_version}: {facts['total']:,} messages"]
    for version, crashes, category in (
        (to_version, facts["crashes_after"], "crashes_after"),
        (from_version, facts["crashes_before"], "crashes_before"),
    ):
        for r, words in crashes.items():
            taken = sum(m for c, _, rule, m, *_ in rows if c == category and rule == r)
            parts.append(f"CRASH on {version}: rule {r}: {words} ({taken:,} such messages here)")
    found_by = [
        ("rules that become invalid", facts["becomes_invalid"], to_version, "says"),
        ("rules that become valid", facts["becomes_valid"], from_version, "said"),
    ]
    if facts["source"] == ACCOUNT_JWT:  # an account JWT's server loads the account without the rules it refuses
        found_by += [
            ("rules loaded into the account after, left out before", facts["becomes_loaded"], from_version, "said"),
            ("rules left out of the account after, loaded before", facts["becomes_left_out"], to_version, "says"),
        ]
    for title, found, verdict, said in found_by:
        parts.append(f"{title}:" + (" none" if not found else ""))
        parts += [
            f"  {_rule_text(None, r)}: {verdict} {said}: {e}"
            for r, e in sorted(found.items(), key=lambda kv: str(kv[0]))
        ]
    parts.append(
        Table(
            ["change", "rule", "messages", "example"],
            [
                [c, _rule_text(i, r, m), m, "-" if s is None else f"{s} -> {cell(b)} | {cell(a)}"]
                for c, i, r, m, s, b, a, _, _ in rows
            ],
            [False, False, True, False],
        )
    )
    parts.append("totals: " + ", ".join(f"{c} {n:,}" for c, n in facts["totals"].items()))
    return parts


def _chart(facts: dict, from_version: str, to_version: str):
    title = f"nats-server {from_version} -> {to_version} over {facts['total']:,} messages"
    return lambda fig: category_bars(fig.add_subplot(1, 1, 1), facts["totals"], COLORS, title)


def server_upgrade(
    messages: DataFrame,
    mappings: MappingsValue | Config,
    from_version: str,
    to_version: str,
    subject: ColumnOrName = "subject",
    cluster: ColumnOrName | None = None,
    seed: int | None = 0,
    key: ColumnOrName | None = None,
    account: str | None = None,
) -> Report:
    """What moving the servers that apply ``mappings`` from nats-server release ``from_version`` to
    ``to_version`` (a line such as ``"2.10"`` or a release such as ``"2.11.11"``) changes, each release
    loading the table as its server loads it from where it is written: a config file's block whole (a table
    one release refuses is refused by its server, which does not start), an account JWT's rule by rule (a
    rule the release refuses is left out of the account, the others apply). Reported: the rules that become
    invalid or valid, the JWT's rules one release leaves out and the other loads (with each release's error),
    the destinations on which a release's server process exits, and per rule the messages of ``messages``
    whose delivered subject changes: ``crashes_after`` (the new release's server exits on the message, and
    the whole server goes down with it), ``crashes_before`` (the old one's does; the new one delivers it),
    ``changed``, ``newly_dropped`` (delivered before, not after), ``newly_delivered``, ``unchanged``; with an
    example of each. A config file's table one release refuses: its messages are counted on the other
    release, under the rule that takes them there, as ``becomes_valid`` or ``becomes_invalid``. Both
    releases draw with the same ``seed`` (and ``key``), so weighted choices differ only where the releases
    do. ``cluster``: the column of the cluster each message entered, as in every report. Runs in classic
    PySpark and under Spark Connect alike.

    Args:
        messages: the recorded messages (of one account, when ``mappings`` is a whole config).
        mappings: the mapping table the servers apply, as ``subject_map`` takes it (an account JWT's table
            in the JWT's shape), or a whole nats-server config or account JWTs (a path or the text), of
            which ``account``'s table.
        from_version: the release (or line) the servers run now, e.g. ``"2.10"``.
        to_version: the release (or line) to move to, e.g. ``"2.15"``.
        subject: the subject column, as in :func:`rule_coverage`.
        cluster: the cluster column, as in :func:`rule_coverage`.
        seed: the draws' seed, as in :func:`rule_coverage`.
        key: a per-message draw key, as in :func:`rule_coverage`.
        account: in a whole config, the account whose table applies: its name or public key (None: the
            top-level block, else the only account with one); for one table, the account it is installed for
            (``{{account-hash()}}`` is the hash of its name; None: none).

    Returns:
        The :class:`Report` (``facts``: ``becomes_invalid``, ``becomes_valid``, ``becomes_loaded``,
        ``becomes_left_out``, ``crashes_before``, ``crashes_after`` and the count of each change).

    Raises:
        ValueError: an unsupported server version (the message names the supported lines), or an account
            that is not in the config.

    Examples:
        >>> print(server_upgrade(traffic, table, "2.10", "2.15"))  # doctest: +SKIP
    """
    for v in (from_version, to_version):
        versions.parse(v)  # checked before Spark runs: an unsupported one names the supported lines
    table, installed_for = _table(messages.sparkSession, mappings, account, (from_version, to_version))
    before, after = _Loaded(table, from_version, installed_for), _Loaded(table, to_version, installed_for)
    counted = _query(messages, table, installed_for, before, after, subject, cluster, seed, key)
    rows = _rows(counted, before, after)
    facts = _facts(rows, before, after)
    df = messages.sparkSession.createDataFrame(rows, SCHEMA)
    return Report(
        "server upgrade",
        df,
        facts,
        _text(rows, facts, from_version, to_version),
        _chart(facts, from_version, to_version),
    )
