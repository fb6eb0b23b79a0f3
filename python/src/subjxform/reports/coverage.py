"""Rule coverage: hits per rule and destination, rules that never fire, rules shadowed in practice, subjects
no rule takes."""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from subjxform.functions import ColumnOrName, MappingsValue, subject_matches

from ._query import explained, mappings_plan
from ._render import Report, Table, share

# subject_map_explain's outcomes; "crash": the release's server process exits on the message (2.10/2.11 on
# {{partition(0,...)}}), and with it every account's traffic
OUTCOMES = ("mapped", "unchanged", "dropped", "no_match", "crash")


@dataclass(frozen=True)
class _Counts:
    """What the query brings back: small aggregates."""

    total: int
    not_subjects: int  # NULL subjects and subjects that are not literal subjects: no rule can take them
    outcomes: dict[str, int]
    by_rule: dict[int, int]
    by_destination: dict[tuple[int, int], int]  # (rule, destination index; -1 the remainder)
    shadowed: dict[int, dict[int, int]]  # rule -> the rule that took its messages -> how many
    unmatched: list[tuple[str, int]]  # the most frequent subjects no rule takes


def _query(
    messages: DataFrame, plan: list[dict], mappings, subject, cluster, seed, key, top_unmatched, limit, server_version
) -> _Counts:
    ex = explained(messages, subject, mappings, cluster, seed, key, server_version=server_version).cache()
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
        by_rule: dict[int, int] = {}
        by_destination: dict[tuple[int, int], int] = {}
        outcomes = {o: 0 for o in OUTCOMES}
        for r in hits:
            if r["outcome"] is None:
                continue
            outcomes[r["outcome"]] += r["count"]
            if r["rule_index"] is not None:
                by_rule[r["rule_index"]] = by_rule.get(r["rule_index"], 0) + r["count"]
                at = (r["rule_index"], -1 if r["remainder"] else r["destination_index"])
                by_destination[at] = by_destination.get(at, 0) + r["count"]
        never = _never_fire(plan, by_rule)

        # Shadowing in practice: messages a rule's source matches that another rule took (the never-fired
        # rules checked first, each costing a subject_matches per message).
        checked = (never + [p["rule_index"] for p in plan if p["rule_index"] not in never])[:limit]
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
        unmatched = (
            ex.where(F.col("x.outcome") == "no_match")
            .groupBy("subject")
            .count()
            .orderBy(F.desc("count"), "subject")
            .limit(top_unmatched)
            .collect()
        )
    finally:
        ex.unpersist()
    return _Counts(
        total=sum(r["count"] for r in hits),
        not_subjects=sum(r["count"] for r in hits if r["outcome"] is None),
        outcomes=outcomes,
        by_rule=by_rule,
        by_destination=by_destination,
        shadowed=shadowed,
        unmatched=[(r["subject"], r["count"]) for r in unmatched],
    )


def _never_fire(plan: list[dict], by_rule: dict[int, int]) -> list[int]:
    return [p["rule_index"] for p in plan if by_rule.get(p["rule_index"], 0) == 0]


def _rows(plan: list[dict], c: _Counts) -> list[dict]:
    """The report's rows: one per rule and destination (and remainder), the note on the rule's first."""
    rows = []
    for p in plan:
        i = p["rule_index"]
        shadow = c.shadowed.get(i, {})
        shadow_total = sum(shadow.values())
        by = max(shadow, key=lambda t: (shadow[t], -t)) if shadow else None
        note = ""
        if c.by_rule.get(i, 0) == 0:
            note = "never fires" + (f"; shadowed by rule {by} ({plan[by]['rule']})" if by is not None else "")
        elif by is not None:
            note = f"{shadow_total:,} taken by rule {by} ({plan[by]['rule']})"
        dests = [(d["index"], d["destination"], d["cluster"]) for d in p["destinations"]]
        if any(s["remainder"] > 0 for s in p["scopes"]):
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
                    "hits": c.by_destination.get((i, d), 0),
                    "rule_hits": c.by_rule.get(i, 0),
                    "shadowed_messages": shadow_total,
                    "shadowed_by": by,
                    "note": note if j == 0 else "",
                }
            )
    return rows


SCHEMA = (
    "rule_index INT, rule STRING, matched_as STRING, destination_index INT, destination STRING, cluster STRING, "
    "hits BIGINT, rule_hits BIGINT, shadowed_messages BIGINT, shadowed_by INT, note STRING"
)


def _facts(plan: list[dict], c: _Counts) -> dict:
    return {
        "total": c.total,
        "outcomes": c.outcomes,
        "not_subjects": c.not_subjects,
        "hits_per_rule": {p["rule"]: c.by_rule.get(p["rule_index"], 0) for p in plan},
        "never_fire": [plan[i]["rule"] for i in _never_fire(plan, c.by_rule)],
        "shadowed": {plan[i]["rule"]: {plan[t]["rule"]: n for t, n in s.items()} for i, s in c.shadowed.items()},
        "unmatched": c.unmatched,
    }


def _text(plan: list[dict], rows: list[dict], c: _Counts) -> list:
    def first_of_rule(r: dict) -> bool:  # the rule's number and source are written on its first line only
        return bool(r["note"]) or (r["destination_index"] in (0, None) and r["destination"] != "(remainder)")

    never = _never_fire(plan, c.by_rule)
    return [
        f"Rule coverage: {c.total:,} messages, {len(plan)} rules",
        Table(
            ["#", "rule", "destination", "hits", "share", "note"],
            [
                [
                    r["rule_index"] if first_of_rule(r) else "",
                    r["rule"] if first_of_rule(r) else "",
                    r["destination"] + (f" [{r['cluster']}]" if r["cluster"] else ""),
                    r["hits"],
                    share(r["hits"], c.total),
                    r["note"],
                ]
                for r in rows
            ],
            [True, False, False, True, True, False],
        ),
        "outcomes: "
        + ", ".join(f"{o} {n:,}" for o, n in c.outcomes.items() if n or o != "crash")  # (a crash only when one is)
        + (
            f"; {c.not_subjects:,} not subjects (NULL or not a literal subject: no rule takes them)"
            if c.not_subjects
            else ""
        ),
        *(
            [
                f"CRASH: {c.outcomes['crash']:,} messages would make the server's process exit (the first one "
                "brings the whole server down, every account's traffic with it; validate names the destinations)"
            ]
            if c.outcomes["crash"]
            else []
        ),
        "never fire: " + (", ".join(f"{i} ({plan[i]['rule']})" for i in never) if never else "none"),
        "no rule takes: "
        + (", ".join(f"{s} ({n:,})" for s, n in c.unmatched) if c.unmatched else "none")
        + (f" ... {c.outcomes['no_match']:,} messages in all" if c.unmatched else ""),
    ]


def _chart(plan: list[dict], c: _Counts):
    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        labels = [f"{p['rule_index']}: {p['rule']}" for p in plan]
        counts = [c.by_rule.get(p["rule_index"], 0) for p in plan]
        shadow_counts = [
            sum(c.shadowed.get(p["rule_index"], {}).values()) if counts[k] == 0 else 0 for k, p in enumerate(plan)
        ]
        y = list(range(len(plan)))[::-1]
        ax.barh(y, counts, color="#2a7ab9", label="messages taken")
        ax.barh(y, shadow_counts, color="#d95f02", hatch="//", alpha=0.6, label="matched, but taken by an earlier rule")
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=8)
        for k in range(len(plan)):
            if counts[k] == 0:
                ax.get_yticklabels()[k].set_color("#b2182b")
        ax.set_xlabel("messages")
        ax.set_title(
            f"Rule coverage: {c.total:,} messages; {len(_never_fire(plan, c.by_rule))} rule(s) never fire; "
            f"{c.outcomes['no_match']:,} taken by no rule"
        )
        ax.legend(loc="lower right", fontsize=8)

    return draw


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
    spark = messages.sparkSession
    plan = mappings_plan(spark, mappings, server_version)
    counts = _query(
        messages, plan, mappings, subject, cluster, seed, key, top_unmatched, shadow_check_limit, server_version
    )
    rows = _rows(plan, counts)
    df = spark.createDataFrame([tuple(r.values()) for r in rows], SCHEMA)
    return Report("rule coverage", df, _facts(plan, counts), _text(plan, rows, counts), _chart(plan, counts))
