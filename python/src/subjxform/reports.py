"""Reports over a DataFrame of messages: what a mapping table does to real traffic.

Each report is built from the SQL functions (``subject_map_explain``, ``mappings_plan``,
``subject_transform``, ``subject_matches``), so it runs in classic PySpark and under Spark Connect
alike; the counting is done by Spark, and only the small aggregates come back to Python. Each returns a
:class:`Report`: ``df`` (the report's rows as a Spark DataFrame), ``text`` (a readable table),
``facts`` (the findings a test or a script checks: rules that never fire, the skew, ...) and, where a
picture says more than a table, ``chart(path)`` writes a PNG.

- :func:`rule_coverage`: hits per rule and per destination, rules that never fire, rules shadowed in
  practice by an earlier overlapping rule, subjects no rule takes;
- :func:`config_diff`: two mapping tables over the same traffic with the same seed (or key): changed /
  unchanged / newly dropped / newly mapped, per rule, with an example of each;
- :func:`partition_balance`: min / max / skew per partition and the hottest keys, for the
  ``{{partition(n,...)}}`` destinations of a table or for candidate ``n`` and token choices;
- :func:`canary_check`: observed against configured share per weighted destination (and per cluster),
  with a binomial (Wilson) confidence interval;
- :func:`server_upgrade`: one table on two nats-server lines: rules that become valid or invalid, and per
  rule the messages whose delivered subject changes.

``server_version`` (every report) is the nats-server line whose rules the tables are compiled by.

``cluster`` is the same in every report: the column holding the cluster each message entered (a column
name or a Column), by which cluster-scoped destinations are chosen, as each server chooses them by its
own ``cluster`` name. ``F.lit("east")`` treats every message as entered in cluster ``east``. (In
:func:`subjxform.subject_map` a string is a cluster name: there the argument is one value.)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any, cast

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from subjxform.functions import (
    ColumnOrName,
    MappingsValue,
    _call,
    _column,
    _mappings_text,
    _server_version,
    subject_map_explain,
    subject_matches,
    subject_transform,
)
from subjxform.portable._mappings import mappings_text

OUTCOMES = ("mapped", "unchanged", "dropped", "no_match")


@dataclass
class Report:
    """One report: ``df`` (Spark DataFrame of its rows), ``text`` (readable table), ``facts`` (findings).

    ``str(report)`` is its ``text``; :meth:`chart` draws its picture.

    Examples:
        >>> report = rule_coverage(traffic, table, key="id")  # doctest: +SKIP
        >>> print(report); report.facts["never_fire"]; report.chart("coverage.png")  # doctest: +SKIP
    """

    title: str
    df: DataFrame
    text: str
    facts: dict = field(default_factory=dict)
    _draw: Callable[[Any], None] | None = field(default=None, repr=False)

    def __str__(self) -> str:
        return self.text

    @property
    def has_chart(self) -> bool:
        """Whether the report has a picture (:meth:`chart` draws it)."""
        return self._draw is not None

    def chart(self, path: str | Path) -> Path | None:
        """Writes the report's picture as a PNG at ``path`` (its folder made if need be); None when the
        report has none.

        Args:
            path: the PNG file to write (10 x 4.2 inches at 100 dpi).

        Returns:
            The path written, or None.

        Raises:
            ImportError: matplotlib is not installed (the ``reports`` extra).

        Examples:
            >>> report.chart("target/coverage.png")  # doctest: +SKIP
            PosixPath('target/coverage.png')
        """
        if self._draw is None:
            return None
        try:
            import matplotlib
        except ImportError:
            raise ImportError("Report.chart() needs matplotlib: pip install 'subjxform[reports]'") from None

        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig = plt.figure(figsize=(10, 4.2))
        try:
            self._draw(fig)
            fig.tight_layout()
            fig.savefig(path, dpi=100)
        finally:
            plt.close(fig)
        return path


# --- shared helpers ------------------------------------------------------------------------------


def _spark(df: DataFrame):
    return df.sparkSession


def _cluster(cluster: ColumnOrName | None, messages: DataFrame) -> Column:
    """The reports' ``cluster``: a column name or a Column (see the module doc); None: no cluster. A str that
    is no column of ``messages`` is taken for what subject_map's ``cluster`` is, a cluster name: said, not run."""
    if cluster is None:
        return F.lit(None).cast("string")
    if isinstance(cluster, str) and cluster not in messages.columns:
        raise ValueError(
            f"cluster={cluster!r} is no column of the messages (they have {', '.join(messages.columns)}): "
            "in the reports cluster names the column holding the cluster each message entered; for "
            f"every message entered in cluster {cluster}, pass F.lit({cluster!r})"
        )
    return _column(cluster, "cluster")


def mappings_plan(spark: SparkSession, mappings: MappingsValue, server_version: str | None = None) -> list[dict]:
    """The table's rules in written order as ``subject_map`` applies them (``mappings_plan`` in SQL):
    ``rule_index``, ``rule``, ``matched_as``, ``destinations`` (``index``, ``destination``, ``weight``,
    ``cluster``) and ``scopes`` (``cluster``, ``remainder``, ``remainder_drops``).

    Args:
        spark: a session with the jar.
        mappings: the mapping table, as ``subject_map`` takes it (text or dict).
        server_version: the nats-server line whose checks apply; None: the session's default.

    Returns:
        One dict per rule, in written order.

    Raises:
        pyspark.errors.AnalysisException: a table nats-server would refuse.

    Examples:
        >>> mappings_plan(spark, "svc: [{destination: svc.v2, weight: 5%}]")[0]["scopes"]  # doctest: +SKIP
        [{'cluster': None, 'remainder': 95, 'remainder_drops': False}]
    """
    text = _mappings_text(mappings)
    row = spark.range(1).select(_call("mappings_plan", text, *_server_version(server_version)).alias("p")).head()
    assert row is not None  # spark.range(1): one row
    return json.loads(row["p"])


def _explained(
    messages: DataFrame,
    subject: ColumnOrName,
    mappings: MappingsValue,
    cluster,
    seed,
    key,
    *extra: Column,
    server_version: str | None = None,
) -> DataFrame:
    # Aliased once: the struct's fields are read from this column, so a row is explained (and drawn) once.
    return messages.select(
        *extra,
        _column(subject).alias("subject"),
        subject_map_explain(subject, mappings, _cluster(cluster, messages), seed, key, server_version).alias("x"),
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[bool]) -> str:
    """A plain text table: columns padded, numbers right-aligned."""
    cells = [[_cell(v) for v in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]

    def line(values):
        return "  ".join(
            v.rjust(w) if right[i] else v.ljust(w) for i, (v, w) in enumerate(zip(values, widths))
        ).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in cells])


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def _share(n: int, total: int) -> str:
    """n of total as a percentage with one decimal; a share that is not zero but would read 0.0% gets two
    significant digits instead, so that a key with 1 message of 100,000 reads 0.001%."""
    if not total:
        return "-"
    pct = 100.0 * n / total
    if n == 0 or pct >= 0.05:
        return f"{pct:.1f}%"
    return f"{pct:.{1 - math.floor(math.log10(pct))}f}".rstrip("0") + "%"


# --- rule coverage -------------------------------------------------------------------------------


def rule_coverage(
    messages: DataFrame,
    mappings: MappingsValue,
    subject: ColumnOrName = "subject",
    cluster: ColumnOrName | None = None,
    seed: int | None = 0,
    key: ColumnOrName | None = None,
    top_unmatched: int = 5,
    shadow_check_limit: int = 200,
    server_version: str | None = None,
) -> Report:
    """Hits per rule and per destination of ``mappings`` over ``messages``; which rules never fire; which
    of those (and which others) are shadowed in practice: messages their source matches went to an
    earlier rule (or to a literal rule); and the subjects no rule takes (the ``top_unmatched`` most
    frequent). ``shadow_check_limit`` bounds how many rules are checked for shadowing (the never-fired
    ones first), since each costs a ``subject_matches`` per message. ``cluster``: the column of the
    cluster each message entered (a name or a Column), as in every report.

    Args:
        messages: the recorded messages.
        mappings: the mapping table, as ``subject_map`` takes it.
        subject: the subject column (a name or Column).
        cluster: the column of the cluster each message entered (a name or a Column; ``F.lit("east")`` for
            traffic that all entered ``east``); None: no cluster.
        seed: the draws' seed (0 by default, as ``subjxform report``'s, so both give the same draws).
        key: a per-message draw key (e.g. a message id): each message's draw is then its own.
        top_unmatched: how many of the subjects no rule takes to name.
        shadow_check_limit: how many rules at most are checked for shadowing.
        server_version: the nats-server line; None: the session's default.

    Returns:
        The :class:`Report` (``facts``: ``never_fire``, ``shadowed``, the outcomes, ...).

    Raises:
        pyspark.errors.AnalysisException: a table nats-server would refuse.

    Examples:
        >>> print(rule_coverage(traffic, table, key="id"))  # doctest: +SKIP
    """
    spark = _spark(messages)
    plan = mappings_plan(spark, mappings, server_version)
    ex = _explained(messages, subject, mappings, cluster, seed, key, server_version=server_version).cache()
    try:
        hits = (
            ex.groupBy(
                F.col("x.rule_index").alias("rule_index"),
                F.col("x.destination_index").alias("destination_index"),
                F.col("x.remainder").alias("remainder"),
                F.col("x.outcome").alias("outcome"),
            )
            .count()
            .collect()
        )
        # NULL subjects and subjects that are not literal subjects: no rule can take them (explain gives NULL).
        not_subjects = sum(r["count"] for r in hits if r["outcome"] is None)
        total = sum(r["count"] for r in hits)
        by_rule: dict[int, int] = {}
        by_dest: dict[tuple, int] = {}
        outcomes = {o: 0 for o in OUTCOMES}
        for r in hits:
            if r["outcome"] is None:
                continue
            outcomes[r["outcome"]] += r["count"]
            if r["rule_index"] is not None:
                by_rule[r["rule_index"]] = by_rule.get(r["rule_index"], 0) + r["count"]
                dest_key = (r["rule_index"], -1 if r["remainder"] else r["destination_index"])
                by_dest[dest_key] = by_dest.get(dest_key, 0) + r["count"]
        never = [p["rule_index"] for p in plan if by_rule.get(p["rule_index"], 0) == 0]

        # Shadowing in practice: messages a rule's source matches that another rule took.
        checked = (never + [p["rule_index"] for p in plan if p["rule_index"] not in never])[:shadow_check_limit]
        shadowed: dict[int, dict[int, int]] = {}
        if checked:
            matching = F.array(*[F.when(subject_matches(F.col("subject"), plan[i]["rule"]), F.lit(i)) for i in checked])
            pairs = (
                ex.select(
                    F.explode(F.filter(matching, lambda v: v.isNotNull())).alias("matches"),
                    F.col("x.rule_index").alias("taken"),
                )
                .where(F.col("taken").isNull() | (F.col("taken") != F.col("matches")))
                .where(F.col("taken").isNotNull())
                .groupBy("matches", "taken")
                .count()
                .collect()
            )
            for r in pairs:
                shadowed.setdefault(r["matches"], {})[r["taken"]] = r["count"]
        unmatched_rows = (
            ex.where(F.col("x.outcome") == "no_match")
            .groupBy("subject")
            .count()
            .orderBy(F.desc("count"), "subject")
            .limit(top_unmatched)
            .collect()
        )
    finally:
        ex.unpersist()

    rows = []
    for p in plan:
        i = p["rule_index"]
        shadow = shadowed.get(i, {})
        shadow_total = sum(shadow.values())
        by = max(shadow, key=lambda t: (shadow[t], -t)) if shadow else None
        note = ""
        if by_rule.get(i, 0) == 0:
            note = "never fires" + (f"; shadowed by rule {by} ({plan[by]['rule']})" if by is not None else "")
        elif by is not None:
            note = f"{shadow_total:,} taken by rule {by} ({plan[by]['rule']})"
        dests = [(d["index"], d["destination"], d["cluster"]) for d in p["destinations"]]
        if any(s["remainder"] > 0 and not s["remainder_drops"] for s in p["scopes"]) or any(
            s["remainder"] > 0 and s["remainder_drops"] for s in p["scopes"]
        ):
            dests.append((-1, "(remainder)", None))
        for j, (d, dest, cl) in enumerate(dests):
            rows.append(
                {
                    "rule_index": i,
                    "rule": p["rule"],
                    "matched_as": p["matched_as"],
                    "destination_index": None if d < 0 else d,
                    "destination": dest,
                    "cluster": cl,
                    "hits": by_dest.get((i, d), 0),
                    "rule_hits": by_rule.get(i, 0),
                    "shadowed_messages": shadow_total,
                    "shadowed_by": by,
                    "note": note if j == 0 else "",
                }
            )
    schema = (
        "rule_index INT, rule STRING, matched_as STRING, destination_index INT, destination STRING, cluster STRING, "
        "hits BIGINT, rule_hits BIGINT, shadowed_messages BIGINT, shadowed_by INT, note STRING"
    )
    df = spark.createDataFrame([tuple(r.values()) for r in rows], schema)
    unmatched = [(r["subject"], r["count"]) for r in unmatched_rows]
    text = "\n".join(
        [
            f"Rule coverage: {total:,} messages, {len(plan)} rules",
            _table(
                ["#", "rule", "destination", "hits", "share", "note"],
                [
                    [
                        r["rule_index"]
                        if r["note"] or r["destination_index"] in (0, None) and r["destination"] != "(remainder)"
                        else "",
                        r["rule"]
                        if r["note"] or r["destination_index"] in (0, None) and r["destination"] != "(remainder)"
                        else "",
                        r["destination"] + (f" [{r['cluster']}]" if r["cluster"] else ""),
                        r["hits"],
                        _share(r["hits"], total),
                        r["note"],
                    ]
                    for r in rows
                ],
                [True, False, False, True, True, False],
            ),
            "outcomes: "
            + ", ".join(f"{o} {n:,}" for o, n in outcomes.items())
            + (
                f"; {not_subjects:,} not subjects (NULL or not a literal subject: no rule takes them)"
                if not_subjects
                else ""
            ),
            "never fire: " + (", ".join(f"{i} ({plan[i]['rule']})" for i in never) if never else "none"),
            "no rule takes: "
            + (", ".join(f"{s} ({n:,})" for s, n in unmatched) if unmatched else "none")
            + (f" ... {outcomes['no_match']:,} messages in all" if unmatched else ""),
        ]
    )
    facts = {
        "total": total,
        "outcomes": outcomes,
        "not_subjects": not_subjects,
        "hits_per_rule": {p["rule"]: by_rule.get(p["rule_index"], 0) for p in plan},
        "never_fire": [plan[i]["rule"] for i in never],
        "shadowed": {plan[i]["rule"]: {plan[t]["rule"]: n for t, n in s.items()} for i, s in shadowed.items()},
        "unmatched": unmatched,
    }

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        labels = [f"{p['rule_index']}: {p['rule']}" for p in plan]
        counts = [by_rule.get(p["rule_index"], 0) for p in plan]
        shadow_counts = [
            sum(shadowed.get(p["rule_index"], {}).values()) if counts[k] == 0 else 0 for k, p in enumerate(plan)
        ]
        y = list(range(len(plan)))[::-1]
        ax.barh(y, counts, color="#2a7ab9", label="messages taken")
        ax.barh(y, shadow_counts, color="#d95f02", hatch="//", alpha=0.6, label="matched, but taken by an earlier rule")
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=8)
        for k, _p in enumerate(plan):
            if counts[k] == 0:
                ax.get_yticklabels()[k].set_color("#b2182b")
        ax.set_xlabel("messages")
        ax.set_title(
            f"Rule coverage: {total:,} messages; {len(never)} rule(s) never fire; "
            f"{outcomes['no_match']:,} taken by no rule"
        )
        ax.legend(loc="lower right", fontsize=8)

    return Report("rule coverage", df, text, facts, draw)


# --- config diff ---------------------------------------------------------------------------------


def _diff_category(old: Column, new: Column) -> Column:
    return (
        F.when(old["result"].eqNullSafe(new["result"]), "unchanged")
        .when(old["result"].isNotNull() & new["result"].isNull(), "newly_dropped")
        # Kept its subject because no rule took it or the rule's remainder did; a destination equal to the
        # subject is a mapping like any other: a rule that changes it is "changed".
        .when(
            ((old["outcome"] == "no_match") | ((old["outcome"] == "unchanged") & old["remainder"]))
            & (new["outcome"] == "mapped"),
            "newly_mapped",
        )
        .otherwise("changed")
    )


DIFF_CATEGORIES = ("changed", "unchanged", "newly_dropped", "newly_mapped")


def config_diff(
    messages: DataFrame,
    old: MappingsValue,
    new: MappingsValue,
    subject: ColumnOrName = "subject",
    cluster: ColumnOrName | None = None,
    seed: int | None = 0,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
) -> Report:
    """``old`` and ``new`` mapping tables over the same messages with the same ``seed``: per message, both
    explanations, and a category: ``unchanged`` (the same result), ``newly_dropped`` (delivered before,
    dropped now), ``newly_mapped`` (kept its subject before, mapped now) or ``changed``; counted per
    (old rule, new rule, category) with an example of each.

    Weighted draws: with ``key`` (e.g. a message id) each message's draw is a pure function of (seed,
    key, rule), so a rule that both tables share draws alike for every message and only real changes
    show. Without it each table draws from its own seeded random source in row order, and a table that
    adds or removes a weighted rule shifts the draws of the rows after it: changes of weighted
    destinations that are only a different draw. ``cluster``: the column of the cluster each message
    entered (a name or a Column), as in every report.

    Args:
        messages: the recorded messages.
        old: the table deployed now, as ``subject_map`` takes it.
        new: the table to deploy.
        subject: the subject column, as in :func:`rule_coverage`.
        cluster: the cluster column, as in :func:`rule_coverage`.
        seed: the draws' seed, as in :func:`rule_coverage`.
        key: a per-message draw key, as in :func:`rule_coverage`.
        server_version: the nats-server line; None: the session's default.

    Returns:
        The :class:`Report` (``facts``: ``total`` and ``totals``, the count of each category).

    Raises:
        pyspark.errors.AnalysisException: either table nats-server would refuse.

    Examples:
        >>> print(config_diff(traffic, old_table, new_table, key="id"))  # doctest: +SKIP
    """
    spark = _spark(messages)
    cl = _cluster(cluster, messages)
    both = messages.select(
        _column(subject).alias("subject"),
        subject_map_explain(subject, old, cl, seed, key, server_version).alias("old"),
        subject_map_explain(subject, new, cl, seed, key, server_version).alias("new"),
    ).where(F.col("old").isNotNull())
    both = both.withColumn("category", _diff_category(F.col("old"), F.col("new")))
    agg = both.groupBy(
        F.col("old.rule_index").alias("old_rule_index"),
        F.col("old.rule").alias("old_rule"),
        F.col("new.rule_index").alias("new_rule_index"),
        F.col("new.rule").alias("new_rule"),
        "category",
    ).agg(
        F.count(F.lit(1)).alias("messages"),
        F.min(
            F.struct("subject", F.col("old.result").alias("old_result"), F.col("new.result").alias("new_result"))
        ).alias("example"),
    )
    rows = sorted(
        agg.collect(),
        key=lambda r: (
            DIFF_CATEGORIES.index(r["category"]),
            -1 if r["old_rule_index"] is None else r["old_rule_index"],
            -1 if r["new_rule_index"] is None else r["new_rule_index"],
        ),
    )
    totals = {c: 0 for c in DIFF_CATEGORIES}
    for r in rows:
        totals[r["category"]] += r["messages"]
    total = sum(totals.values())
    out_rows = [
        (
            r["category"],
            r["old_rule_index"],
            r["old_rule"],
            r["new_rule_index"],
            r["new_rule"],
            r["messages"],
            r["example"]["subject"],
            r["example"]["old_result"],
            r["example"]["new_result"],
        )
        for r in rows
    ]
    df = spark.createDataFrame(
        out_rows,
        "category STRING, old_rule_index INT, old_rule STRING, new_rule_index INT, new_rule STRING, "
        "messages BIGINT, example_subject STRING, example_old STRING, example_new STRING",
    )
    text = "\n".join(
        [
            f"Config diff: {total:,} messages, seed {seed}",
            _table(
                ["category", "old rule", "new rule", "messages", "example"],
                [
                    [
                        c,
                        "-" if o is None else f"{oi}: {o}",
                        "-" if n is None else f"{ni}: {n}",
                        m,
                        f"{s} -> {_cell(eo)} | {_cell(en)}",
                    ]
                    for c, oi, o, ni, n, m, s, eo, en in out_rows
                ],
                [False, False, False, True, False],
            ),
            "totals: " + ", ".join(f"{c} {n:,}" for c, n in totals.items()),
        ]
    )
    facts = {"total": total, "totals": totals, "by_rules": {(c, o, n): m for c, _, o, _, n, m, *_ in out_rows}}

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        colors = {"changed": "#d95f02", "unchanged": "#999999", "newly_dropped": "#b2182b", "newly_mapped": "#2a7ab9"}
        bars = ax.bar(list(totals), [totals[c] for c in totals], color=[colors[c] for c in totals])
        ax.bar_label(bars, labels=[f"{totals[c]:,} ({_share(totals[c], total)})" for c in totals], fontsize=8)
        ax.set_ylabel("messages")
        ax.set_title(f"Config diff over {total:,} messages (seed {seed})")

    return Report("config diff", df, text, facts, draw)


# --- partition balance ---------------------------------------------------------------------------

_PARTITION = re.compile(r"\{\{\s*partition\s*\(\s*(\d+)\s*((?:,\s*\d+\s*)*)\)\s*\}\}", re.I)


def partition_candidates(
    spark: SparkSession, mappings: MappingsValue, server_version: str | None = None
) -> list[tuple[str, int, tuple[int, ...]]]:
    """(source, n, tokens) of every ``{{partition(n,t...)}}`` in the table's destinations.

    Args:
        spark: a session with the jar.
        mappings: the mapping table.
        server_version: the nats-server line; None: the session's default.

    Returns:
        The distinct triples, in the table's order.

    Examples:
        >>> partition_candidates(spark, 'orders.*.*: "orders.{{partition(4,2)}}.$1.$2"')  # doctest: +SKIP
        [('orders.*.*', 4, (2,))]
    """
    out = []
    for p in mappings_plan(spark, mappings, server_version):
        for d in p["destinations"]:
            for m in _PARTITION.finditer(d["destination"]):
                toks = tuple(int(t) for t in m.group(2).replace(",", " ").split())
                if (p["rule"], int(m.group(1)), toks) not in out:
                    out.append((p["rule"], int(m.group(1)), toks))
    return out


def partition_balance(
    messages: DataFrame,
    source: str | None = None,
    candidates: Sequence[tuple[int, Sequence[int]] | tuple[str, int, Sequence[int]]] | None = None,
    mappings: MappingsValue | None = None,
    subject: ColumnOrName = "subject",
    top_keys: int = 5,
    server_version: str | None = None,
) -> Report:
    """How evenly ``{{partition(n, tokens...)}}`` spreads ``messages``: per candidate, messages per
    partition, min / max / skew (max over mean; 1.0 is perfectly even) and the hottest keys (the
    wildcard tokens hashed) with their share. Candidates are the ``{{partition(...)}}`` destinations of
    ``mappings``, or ``candidates``: ``(n, tokens)`` pairs over the wildcards of ``source``, or
    ``(source, n, tokens)`` triples. The
    partition is computed by ``subject_transform`` with nats-server's hash, over the messages
    ``source`` matches.

    Args:
        messages: the recorded messages.
        source: the source filter whose wildcards ``candidates`` pairs hash.
        candidates: ``(n, tokens)`` pairs (with ``source``) or ``(source, n, tokens)`` triples.
        mappings: a mapping table whose ``{{partition(...)}}`` destinations are the candidates.
        subject: the subject column (a name or Column).
        top_keys: how many of the hottest keys to name per candidate.
        server_version: the nats-server line; None: the session's default.

    Returns:
        The :class:`Report` (``facts``: per candidate the counts, min, max and skew).

    Raises:
        ValueError: neither ``mappings`` nor candidates given, a table without ``{{partition(n,...)}}``, or a
            candidate with a count below 1.

    Examples:
        >>> print(partition_balance(traffic, "orders.*.*", candidates=[(8, [2]), (8, [1, 2])]))  # doctest: +SKIP
    """
    spark = _spark(messages)
    if mappings is not None:
        # A table's {{partition(0,…)}} sends everything to 0 (or, before 2.12, loses it): nothing to balance.
        found = [c for c in partition_candidates(spark, mappings, server_version) if c[1] >= 1]
    elif candidates and all(len(c) == 3 for c in candidates):
        triples = cast("Sequence[tuple[str, int, Sequence[int]]]", candidates)  # all() above: every one a triple
        found = [(src, int(n), tuple(int(t) for t in toks)) for src, n, toks in triples]
    elif source is not None and candidates:
        pairs = cast("Sequence[tuple[int, Sequence[int]]]", candidates)  # (n, tokens) pairs, as documented
        found = [(source, int(n), tuple(int(t) for t in toks)) for n, toks in pairs]
    else:
        raise ValueError(
            "give mappings (with {{partition(...)}} destinations), or source and (n, tokens) candidates, "
            "or (source, n, tokens) candidates"
        )
    if not found:
        raise ValueError("the mappings have no {{partition(n,...)}} destination")
    for src, n, toks in found:
        if n < 1 or not toks:
            raise ValueError(
                f"partition candidate ({src!r}, {n}, {list(toks)}): the count must be at least 1 and at "
                "least one wildcard token hashed"
            )
    subj = _column(subject)
    results = []
    rows = []
    for src, n, toks in found:
        dest = "{{partition(%d,%s)}}" % (n, ",".join(map(str, toks)))
        key_dest = ".".join(f"{{{{wildcard({t})}}}}" for t in toks)
        matched = (
            messages.select(subj.alias("subject"))
            .where(subject_matches(F.col("subject"), src))
            .select(
                subject_transform(F.col("subject"), src, dest, server_version=server_version)
                .cast("int")
                .alias("partition"),
                subject_transform(F.col("subject"), src, key_dest, server_version=server_version).alias("key"),
            )
        )
        per_key = matched.groupBy("partition", "key").count().cache()
        try:
            per_part = {
                r["partition"]: r["count"]
                for r in per_key.groupBy("partition").agg(F.sum("count").alias("count")).collect()
            }
            hot = per_key.orderBy(F.desc("count"), "key").limit(top_keys).collect()
        finally:
            per_key.unpersist()
        counts = [per_part.get(p, 0) for p in range(n)]
        total = sum(counts)
        mean = total / n if n else 0
        skew = max(counts) / mean if mean else float("nan")
        label = f"{src} -> {dest}"
        results.append(
            {
                "label": label,
                "source": src,
                "n": n,
                "tokens": toks,
                "counts": counts,
                "total": total,
                "min": min(counts),
                "max": max(counts),
                "skew": skew,
                "hot": [(r["key"], r["partition"], r["count"]) for r in hot],
            }
        )
        rows += [(label, p, c) for p, c in enumerate(counts)]
    df = spark.createDataFrame(rows, "candidate STRING, partition INT, messages BIGINT")
    parts = []
    for r in results:
        parts.append(
            f"{r['label']}: {r['total']:,} messages, min {r['min']:,}, max {r['max']:,}, skew (max/mean) {r['skew']:.3f}"
        )
        parts.append("  hottest keys: " + ", ".join(f"{k} -> {p} ({_share(c, r['total'])})" for k, p, c in r["hot"]))
    text = "\n".join(["Partition balance"] + parts)
    facts = {
        r["label"]: {k: r[k] for k in ("n", "tokens", "counts", "total", "min", "max", "skew", "hot")} for r in results
    }

    def draw(fig):
        k = len(results)
        for i, r in enumerate(results):
            ax = fig.add_subplot(1, k, i + 1)
            ax.bar(range(r["n"]), r["counts"], color="#2a7ab9")
            ax.axhline(r["total"] / r["n"], color="black", linestyle="--", linewidth=1, label="mean")
            ax.set_title(
                f"partition({r['n']},{','.join(map(str, r['tokens']))}) of {r['source']}\n"
                f"skew {r['skew']:.2f}, min {r['min']:,}, max {r['max']:,}",
                fontsize=9,
            )
            ax.set_xlabel("partition")
            if i == 0:
                ax.set_ylabel("messages")
            ax.legend(fontsize=7)

    return Report("partition balance", df, text, facts, draw)


# --- canary check --------------------------------------------------------------------------------


def wilson_interval(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion k/n at ``confidence`` (two-sided).

    Args:
        k: successes.
        n: trials (0 gives the whole interval, 0 to 1).
        confidence: e.g. 0.99.

    Returns:
        ``(low, high)``, within 0 and 1.

    Examples:
        >>> tuple(round(x, 4) for x in wilson_interval(50, 100, 0.95))
        (0.4038, 0.5962)
    """
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def canary_check(
    messages: DataFrame,
    mappings: MappingsValue,
    subject: ColumnOrName = "subject",
    cluster: ColumnOrName | None = None,
    seed: int | None = 0,
    key: ColumnOrName | None = None,
    confidence: float = 0.99,
    delivered: ColumnOrName | None = None,
    server_version: str | None = None,
) -> Report:
    """Observed against configured share of every weighted destination (a rule scope whose draw is not
    certain), per rule and cluster scope: messages, observed share, configured weight and the Wilson
    interval of the observed share at ``confidence``; ``ok`` when the configured share lies inside it.
    The remainder (kept or dropped) is a destination of its own.

    Without ``delivered``, the draws are ``subject_map``'s (with ``seed``): a check of the table itself.
    With ``delivered`` (a column: the subject a server actually delivered for each message, NULL when it
    was dropped), each message is attributed to the destination that gives that subject: a check of
    recorded traffic against the configured weights. ``cluster``: the column of the cluster each message
    entered (a name or a Column), as in every report: each cluster scope is checked on its own messages.

    Args:
        messages: the recorded messages.
        mappings: the mapping table, as ``subject_map`` takes it.
        subject: the subject column, as in :func:`rule_coverage`.
        cluster: the cluster column, as in :func:`rule_coverage`.
        seed: the draws' seed, as in :func:`rule_coverage`.
        key: a per-message draw key, as in :func:`rule_coverage`.
        confidence: the Wilson interval's confidence.
        delivered: the column of the subject a server delivered for each message (NULL: dropped).
        server_version: the nats-server line; None: the session's default.

    Returns:
        The :class:`Report` (``facts``: ``rows``, each destination's observed share, interval and ``ok``; ``all_ok``).

    Raises:
        pyspark.errors.AnalysisException: a table nats-server would refuse.

    Examples:
        >>> print(canary_check(traffic, table, key="id"))  # doctest: +SKIP
    """
    spark = _spark(messages)
    plan = mappings_plan(spark, mappings, server_version)
    extra = [] if delivered is None else [_column(delivered, "delivered").alias("delivered")]
    ex = _explained(messages, subject, mappings, cluster, seed, key, *extra, server_version=server_version)
    if delivered is None:
        dest_index = F.col("x.destination_index")
    else:
        dest_index = F.lit(None).cast("int")
        remainder = F.col("delivered").isNull() | (F.col("delivered") == F.col("subject"))
        for p in plan:
            for d in p["destinations"]:
                gives = subject_transform(
                    F.col("subject"), p["rule"], d["destination"], server_version=server_version
                ).eqNullSafe(F.col("delivered"))
                in_scope = (F.col("x.rule_index") == p["rule_index"]) & F.col("x.cluster").eqNullSafe(
                    F.lit(d["cluster"])
                )
                dest_index = F.when(dest_index.isNull() & in_scope & gives, F.lit(d["index"])).otherwise(dest_index)
        dest_index = F.when(dest_index.isNull() & ~remainder, F.lit(-2)).otherwise(
            dest_index
        )  # -2: no destination gives it
    counts = (
        ex.where(F.col("x.rule_index").isNotNull())
        .groupBy(
            F.col("x.rule_index").alias("rule_index"),
            F.col("x.cluster").alias("scope"),
            dest_index.alias("destination_index"),
        )
        .count()
        .collect()
    )
    seen: dict[tuple, int] = {}
    for r in counts:
        seen_key = (r["rule_index"], r["scope"], -1 if r["destination_index"] is None else r["destination_index"])
        seen[seen_key] = seen.get(seen_key, 0) + r["count"]
    rows: list[tuple] = []  # the DataFrame's rows below; low and high (9, 10) are None only where ok (11) is
    for p in plan:
        for s in p["scopes"]:
            dests = [
                (d["index"], d["destination"], d["weight"]) for d in p["destinations"] if d["cluster"] == s["cluster"]
            ]
            if s["remainder"] > 0:
                dests.append((-1, "(remainder, dropped)" if s["remainder_drops"] else "(remainder)", s["remainder"]))
            if sum(1 for *_, w in dests if w > 0) < 2:
                continue  # certain: nothing to check
            n = sum(seen.get((p["rule_index"], s["cluster"], d), 0) for d, *_ in dests)
            for d, dest, w in dests:
                k = seen.get((p["rule_index"], s["cluster"], d), 0)
                # No messages: nothing observed, so no interval and no verdict (None), not a failed check.
                low, high = wilson_interval(k, n, confidence) if n else (None, None)
                ok = low <= w / 100 <= high if n else None
                rows.append(
                    (
                        p["rule_index"],
                        p["rule"],
                        s["cluster"],
                        None if d < 0 else d,
                        dest,
                        k,
                        n,
                        k / n if n else None,
                        w / 100,
                        low,
                        high,
                        ok,
                    )
                )
    df = spark.createDataFrame(
        rows,
        "rule_index INT, rule STRING, cluster STRING, destination_index INT, destination STRING, "
        "messages BIGINT, rule_messages BIGINT, observed DOUBLE, configured DOUBLE, "
        "low DOUBLE, high DOUBLE, ok BOOLEAN",
    )
    pct = lambda v: "-" if v is None else f"{100 * v:.2f}%"  # noqa: E731
    text = (
        "\n".join(
            [
                f"Canary check ({100 * confidence:g}% Wilson interval)",
                _table(
                    ["rule", "cluster", "destination", "messages", "observed", "configured", "interval", "ok"],
                    [
                        [
                            f"{r[0]}: {r[1]}",
                            r[2],
                            r[4],
                            r[5],
                            pct(r[7]),
                            pct(r[8]),
                            "-" if r[9] is None else f"{pct(r[9])} .. {pct(r[10])}",
                            "no messages" if r[11] is None else r[11],
                        ]
                        for r in rows
                    ],
                    [False, False, False, True, True, True, True, False],
                ),
            ]
        )
        if rows
        else "Canary check: no weighted destination"
    )
    unexplained = sum(n for (_, _, d), n in seen.items() if d == -2)
    if unexplained:
        text += f"\n{unexplained:,} delivered subjects no destination of their rule gives"
    facts = {
        "rows": [
            dict(
                zip(
                    (
                        "rule_index",
                        "rule",
                        "cluster",
                        "destination_index",
                        "destination",
                        "messages",
                        "rule_messages",
                        "observed",
                        "configured",
                        "low",
                        "high",
                        "ok",
                    ),
                    r,
                )
            )
            for r in rows
        ],
        "all_ok": all(r[11] is not False for r in rows),
        "unchecked": sum(1 for r in rows if r[11] is None),
        "unexplained": unexplained,
    }

    checked = [r for r in rows if r[11] is not None]

    def draw(fig):
        rows = checked  # a destination without messages has no interval to draw
        ax = fig.add_subplot(1, 1, 1)
        labels = [f"{r[4]}" + (f" [{r[2]}]" if r[2] else "") for r in rows]
        x = list(range(len(rows)))
        obs = [100 * (r[7] or 0) for r in rows]
        err = [[100 * ((r[7] or 0) - r[9]) for r in rows], [100 * (r[10] - (r[7] or 0)) for r in rows]]
        ax.errorbar(
            x, obs, yerr=err, fmt="o", color="#d95f02", capsize=4, label=f"observed ({100 * confidence:g}% interval)"
        )
        ax.scatter(x, [100 * r[8] for r in rows], marker="_", s=400, color="black", label="configured")
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=8, rotation=15)
        ax.set_ylabel("% of the rule's messages")
        ax.set_yscale("symlog", linthresh=1)
        bad = sum(1 for r in rows if not r[11])
        ax.set_title(f"Canary check: {len(rows) - bad} of {len(rows)} destinations within the interval")
        ax.legend(fontsize=8)

    return Report("canary check", df, text, facts, draw if checked else None)


# --- server upgrade ------------------------------------------------------------------------------

UPGRADE_CATEGORIES = ("becomes_invalid", "becomes_valid", "changed", "newly_dropped", "newly_delivered", "unchanged")


def _upgrade_category(before: Column, after: Column) -> Column:
    # A NULL result is a message the server does not deliver: dropped by a weight, or lost (2.10/2.11 crash
    # on `{{partition(0,...)}}`).
    return (
        F.when(before["result"].eqNullSafe(after["result"]), "unchanged")
        .when(after["result"].isNull(), "newly_dropped")
        .when(before["result"].isNull(), "newly_delivered")
        .otherwise("changed")
    )


def _errors_by_rule(spark, mappings: MappingsValue, server_version: str) -> dict[str | None, str]:
    """The table's errors on a line, by rule (None: the text as a whole), as ``subjxform validate`` finds them."""
    from subjxform.mappings import validate_mappings

    text = mappings if isinstance(mappings, str) else mappings_text(cast(dict, mappings))
    errors: dict[str | None, str] = {}
    for p in validate_mappings(text, spark, server_version):
        if p.severity == "error":
            errors.setdefault(p.rule, p.message)
    return errors


def server_upgrade(
    messages: DataFrame,
    mappings: MappingsValue,
    from_version: str,
    to_version: str,
    subject: ColumnOrName = "subject",
    cluster: ColumnOrName | None = None,
    seed: int | None = 0,
    key: ColumnOrName | None = None,
) -> Report:
    """What moving the servers that apply ``mappings`` from nats-server line ``from_version`` to
    ``to_version`` (e.g. ``"2.10"`` to ``"2.15"``) changes: the rules that become invalid or valid (with
    each line's error), and per rule the messages of ``messages`` whose delivered subject changes:
    ``changed``, ``newly_dropped`` (delivered before, not after), ``newly_delivered`` (not delivered before:
    e.g. lost on 2.10/2.11, whose servers crash on ``{{partition(0,...)}}``), ``unchanged``; with an example
    of each. ``cluster``: the column of the cluster each message entered, as in every report. Both lines
    draw with the same ``seed`` (and ``key``), so weighted choices differ only where
    the lines do. A table one line refuses is refused whole by that line's server: its messages are
    counted on the other line, under the rule that takes them there, as ``becomes_valid`` or
    ``becomes_invalid``. The rules' errors are found in the session's JVM (a classic session).

    Args:
        messages: the recorded messages.
        mappings: the mapping table the servers apply, as ``subject_map`` takes it.
        from_version: the line the servers run now, e.g. ``"2.10"``.
        to_version: the line to move to, e.g. ``"2.15"``.
        subject: the subject column, as in :func:`rule_coverage`.
        cluster: the cluster column, as in :func:`rule_coverage`.
        seed: the draws' seed, as in :func:`rule_coverage`.
        key: a per-message draw key, as in :func:`rule_coverage`.

    Returns:
        The :class:`Report` (``facts``: ``becomes_invalid``, ``becomes_valid`` and the count of each change).

    Raises:
        RuntimeError: a Spark Connect session, or a session without the jar.

    Examples:
        >>> print(server_upgrade(traffic, table, "2.10", "2.15"))  # doctest: +SKIP
    """
    spark = _spark(messages)
    errors = {v: _errors_by_rule(spark, mappings, v) for v in (from_version, to_version)}
    before_errors, after_errors = errors[from_version], errors[to_version]
    accepted = {v: not errors[v] for v in (from_version, to_version)}
    cl = _cluster(cluster, messages)

    def explained(version: str) -> Column:
        return subject_map_explain(subject, mappings, cl, seed, key, version)

    if accepted[from_version] and accepted[to_version]:
        both = messages.select(
            _column(subject).alias("subject"),
            explained(from_version).alias("before"),
            explained(to_version).alias("after"),
        ).where(F.col("before").isNotNull())
        category = _upgrade_category(F.col("before"), F.col("after"))
        rule_index, rule = F.col("before.rule_index"), F.col("before.rule")
        before_result, after_result = F.col("before.result"), F.col("after.result")
    elif accepted[from_version] or accepted[to_version]:
        valid = from_version if accepted[from_version] else to_version
        both = messages.select(_column(subject).alias("subject"), explained(valid).alias("x")).where(
            F.col("x").isNotNull()
        )
        category = F.lit("becomes_invalid" if valid == from_version else "becomes_valid")
        rule_index, rule = F.col("x.rule_index"), F.col("x.rule")
        nothing = F.lit(None).cast("string")
        before_result, after_result = (
            (F.col("x.result"), nothing) if valid == from_version else (nothing, F.col("x.result"))
        )
    else:
        both = None
    rows = []
    if both is not None:
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
    rows = sorted(
        rows,
        key=lambda r: (UPGRADE_CATEGORIES.index(r["category"]), -1 if r["rule_index"] is None else r["rule_index"]),
    )
    out_rows = [
        (
            r["category"],
            r["rule_index"],
            r["rule"],
            r["messages"],
            r["example"]["subject"],
            r["example"]["before"],
            r["example"]["after"],
            before_errors.get(r["rule"]),
            after_errors.get(r["rule"]),
        )
        for r in rows
    ]
    # Rules whose verdict changes, with no message to show for them.
    shown = {(c, r) for c, _, r, *_ in out_rows}
    for rule_name in sorted(set(before_errors) ^ set(after_errors), key=str):
        change = "becomes_valid" if rule_name in before_errors else "becomes_invalid"
        if (change, rule_name) not in shown:
            out_rows.append(
                (
                    change,
                    None,
                    rule_name,
                    0,
                    None,
                    None,
                    None,
                    before_errors.get(rule_name),
                    after_errors.get(rule_name),
                )
            )
    df = spark.createDataFrame(
        out_rows,
        "category STRING, rule_index INT, rule STRING, messages BIGINT, "
        "example_subject STRING, example_before STRING, example_after STRING, "
        "error_before STRING, error_after STRING",
    )
    totals = {c: 0 for c in UPGRADE_CATEGORIES}
    for c, _, _, m, *_ in out_rows:
        totals[c] += m
    total = sum(totals.values())
    becomes_invalid = {r: e for r, e in after_errors.items() if r not in before_errors}
    becomes_valid = {r: e for r, e in before_errors.items() if r not in after_errors}

    def rule_text(i, r, messages=0):
        if r is None:  # messages no rule takes, or an error of the table as a whole
            return "(no rule)" if messages else "(the table)"
        return r if i is None else f"{i}: {r}"

    lines = [f"Server upgrade {from_version} -> {to_version}: {total:,} messages"]
    for title, found, verdict in (
        ("become invalid", becomes_invalid, to_version),
        ("become valid", becomes_valid, from_version),
    ):
        lines.append(f"rules that {title}:" + (" none" if not found else ""))
        lines += [
            f"  {rule_text(None, r)}: {verdict} says: {e}" for r, e in sorted(found.items(), key=lambda kv: str(kv[0]))
        ]
    lines.append(
        _table(
            ["change", "rule", "messages", "example"],
            [
                [c, rule_text(i, r, m), m, "-" if s is None else f"{s} -> {_cell(b)} | {_cell(a)}"]
                for c, i, r, m, s, b, a, _, _ in out_rows
            ],
            [False, False, True, False],
        )
    )
    lines.append("totals: " + ", ".join(f"{c} {n:,}" for c, n in totals.items()))
    facts = {
        "total": total,
        "totals": totals,
        "becomes_invalid": becomes_invalid,
        "becomes_valid": becomes_valid,
        "by_rule": {(c, r): m for c, _, r, m, *_ in out_rows},
    }

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        colors = {
            "becomes_invalid": "#b2182b",
            "becomes_valid": "#1b7837",
            "changed": "#d95f02",
            "newly_dropped": "#e7298a",
            "newly_delivered": "#2a7ab9",
            "unchanged": "#999999",
        }
        bars = ax.bar(list(totals), [totals[c] for c in totals], color=[colors[c] for c in totals])
        ax.bar_label(bars, labels=[f"{totals[c]:,} ({_share(totals[c], total)})" for c in totals], fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
        ax.set_ylabel("messages")
        ax.set_title(f"nats-server {from_version} -> {to_version} over {total:,} messages")

    return Report("server upgrade", df, "\n".join(lines), facts, draw)
