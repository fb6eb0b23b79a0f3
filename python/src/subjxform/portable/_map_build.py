"""A compiled mapping table (_mappings.MappingTable) -> an expression tree of Spark's built-in functions
(see _expr, _build): ``subject_map`` and ``subject_map_explain`` without the jar.

Rule selection is one CASE in the engine's order: the literal rules by equality first, then the
wildcard rules in written order, else the subject unchanged; NULL for a subject that is not a literal
subject. A rule's scope is chosen by a CASE on the cluster (the cluster-less destinations otherwise).

The weighted draw appears once per row: the draw in [0, 100) indexes a constant array of 100 positions
(which destination each draw value picks, the loss a NULL past the last), and ``elt`` evaluates only the
destination picked. That matters for unkeyed draws: Spark evaluates every occurrence of ``rand`` on its
own (nondeterministic expressions are never shared), so a draw written twice would be two draws.
Keyed draws are the jar's KeyedDraw.below(100, seed, xxhash64(key), rule salt), bit for bit."""

from __future__ import annotations

from ..grammar import mapping_table
from ..grammar.keyed_draw import mix
from ..grammar.subjects import compile_filter
from . import _build as B
from ._expr import Aggregate, Node, Var, call, case, cast, lit, null, shared_case

FUNCTION = "subject_map"


class MapDraws:
    """The weighted draw of each rule: keyed (the jar's, exactly) or from Spark's rand, and the draws of
    `{{random(n)}}` tokens (core Draws)."""

    def __init__(self, seed: int, key: Node | None):
        self.seed = seed
        self.key = key
        self.tokens = B.Draws(seed, key)
        self._keyed: Node | None = None

    @property
    def keyed(self) -> bool:
        return self.key is not None

    def weight_draw(self, rule: mapping_table.Rule) -> Node:
        """An INT in [0, 100) for this row and rule."""
        if self.key is not None:
            if self._keyed is None:
                self._keyed = B.keyed_mix(self.seed, B.draw_key(self.key))  # shared by every rule
            return cast(B.below_from_keyed(self._keyed, 100, rule.salt), "int")
        # Unkeyed: Spark's generator, a stream per rule (named by its salt, as the keyed draws are).
        rule_seed = B._signed(mix(self.seed ^ rule.salt))
        return cast(call("floor", call("*", call("rand", lit(rule_seed)), lit(100))), "int")


def _picks(choice: mapping_table.Choice) -> list[int]:
    """For each draw value 0..99, elt's 1-based position: destination i -> i + 1, the loss -> k + 1."""
    k = len(choice.destinations)
    return [choice.pick(w) + 1 if choice.pick(w) >= 0 else k + 1 for w in range(100)]


def _position(choice: mapping_table.Choice, draw: Node) -> Node:
    """The 1-based position the row's draw picks (the draw written once)."""
    return call("element_at", call("array", *[B.i32(p) for p in _picks(choice)]), call("+", draw, B.i32(1)))


def _output(d: mapping_table.Destination, parts: B.SubjectParts, draws: MapDraws) -> Node:
    t = d.transform
    return B.bounded(B.transform_output(t, parts, draws.tokens), t, FUNCTION, parts.subject)


def _choice_result(
    rule: mapping_table.Rule, choice: mapping_table.Choice, parts: B.SubjectParts, draws: MapDraws
) -> Node:
    if choice.fixed >= 0:
        return _output(choice.destinations[choice.fixed], parts, draws)
    if choice.fixed == mapping_table.DROP:
        return null("string")
    outs = [_output(d, parts, draws) for d in choice.destinations]
    if any(p == len(outs) + 1 for p in _picks(choice)):
        outs.append(null("string"))  # the loss
    return call("elt", _position(choice, draws.weight_draw(rule)), *outs)


def _scoped(rule: mapping_table.Rule, cluster: Node | None, build) -> Node:
    """`build(choice)` for the rule's scope: the cluster's destinations when it has any, else the default."""
    if not rule.clusters or cluster is None:
        return build(rule.default)
    return case(*[(call("=", cluster, lit(c.cluster)), build(c)) for c in rule.clusters], otherwise=build(rule.default))


def _table(table: mapping_table.MappingTable, parts: B.SubjectParts, rule_node, no_match: Node, choose=case) -> Node:
    """CASE over the rules in the engine's order; `rule_node(rule, matched_as)` is a rule's value. `choose`:
    case, or shared_case for STRING values (the pieces rules share computed once a row)."""
    whens: list[tuple[Node, Node]] = [
        (call("=", parts.subject, lit(r.source)), rule_node(r, "literal")) for r in table.rules if r.literal
    ]
    whens += [
        (parts.matches(compile_filter(r.source, source_quirk=True), literal_known=True), rule_node(r, "wildcard"))
        for r in table.rules
        if r.wildcard
    ]
    body = choose(*whens, otherwise=no_match) if whens else no_match
    return choose((parts.is_literal(), body))


def map_tree(
    table: mapping_table.MappingTable, draws: MapDraws, cluster: Node | None = None, parts: B.SubjectParts | None = None
) -> Node:
    """subject_map(subject, table, cluster, seed, key) as a tree."""
    parts = parts or B.SubjectParts()

    def rule_node(rule: mapping_table.Rule, matched_as: str) -> Node:
        return _scoped(rule, cluster, lambda c: _choice_result(rule, c, parts, draws))

    return _table(table, parts, rule_node, parts.subject, shared_case)


# ---------------------------------------------------------------------------------------------------
# subject_map_explain


def _explained(
    rule: mapping_table.Rule,
    matched_as: str,
    choice: mapping_table.Choice,
    d: mapping_table.Destination | None,
    result: Node,
    subject: Node,
) -> Node:
    """The explanation's struct for one outcome of the draw (`d` None: the loss)."""
    entry = -1 if d is None or d.is_remainder else d.index
    outcome = case(
        (call("isnull", result), lit("dropped")),
        (call("=", result, subject), lit("unchanged")),
        otherwise=lit("mapped"),
    )
    return call(
        "named_struct",
        lit("rule"),
        lit(rule.source),
        lit("rule_index"),
        B.i32(rule.index),
        lit("matched_as"),
        lit(matched_as),
        lit("cluster"),
        lit(choice.cluster) if choice.cluster is not None else null("string"),
        lit("destination"),
        lit(d.destination) if d is not None and entry >= 0 else null("string"),
        lit("destination_index"),
        B.i32(entry) if entry >= 0 else null("int"),
        lit("weight"),
        B.i32(d.weight if d is not None and entry >= 0 else choice.remainder_weight),
        lit("remainder"),
        lit(entry < 0),
        lit("outcome"),
        outcome,
        lit("result"),
        result,
    )


def _choice_explained(
    rule: mapping_table.Rule, matched_as: str, choice: mapping_table.Choice, parts: B.SubjectParts, draws: MapDraws
) -> Node:
    def one(d: mapping_table.Destination | None) -> Node:
        return _explained(
            rule, matched_as, choice, d, _output(d, parts, draws) if d is not None else null("string"), parts.subject
        )

    if choice.fixed >= 0:
        return one(choice.destinations[choice.fixed])
    if choice.fixed == mapping_table.DROP:
        return one(None)
    k = len(choice.destinations)
    options = [one(d) for d in choice.destinations] + [one(None)]

    def select(position: Node) -> Node:
        return case(*[(call("=", position, B.i32(i + 1)), o) for i, o in enumerate(options[:k])], otherwise=options[k])

    position = _position(choice, draws.weight_draw(rule))
    if draws.keyed:
        return select(position)  # deterministic: written several times, the same value
    # Unkeyed: bind the one draw to a lambda parameter, so that every field sees the same draw.
    # (Its start value is one of the options, not a typed NULL: the same struct type, written in SQL alike.)
    return Aggregate(call("array", position), options[k], "_acc", "_pick", select(Var("_pick")))


def explain_tree(
    table: mapping_table.MappingTable, draws: MapDraws, cluster: Node | None = None, parts: B.SubjectParts | None = None
) -> Node:
    """subject_map_explain(subject, table, cluster, seed, key) as a tree (the jar's struct, field for field)."""
    parts = parts or B.SubjectParts()

    def rule_node(rule: mapping_table.Rule, matched_as: str) -> Node:
        return _scoped(rule, cluster, lambda c: _choice_explained(rule, matched_as, c, parts, draws))

    no_match = call(
        "named_struct",
        lit("rule"),
        null("string"),
        lit("rule_index"),
        null("int"),
        lit("matched_as"),
        null("string"),
        lit("cluster"),
        null("string"),
        lit("destination"),
        null("string"),
        lit("destination_index"),
        null("int"),
        lit("weight"),
        null("int"),
        lit("remainder"),
        null("boolean"),
        lit("outcome"),
        lit("no_match"),
        lit("result"),
        parts.subject,
    )
    return _table(table, parts, rule_node, no_match)
