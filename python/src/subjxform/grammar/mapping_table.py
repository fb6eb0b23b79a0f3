"""A Core NATS account mapping table (the content of a nats-server ``mappings { }`` block), parsed and
validated without the JVM: the same inputs the jar's ``subject_map`` takes (JSON text, nats-server config
syntax, a Python dict in the JSON shape, JWT-style ``{"subject", "weight", "cluster"}`` entries), the
same acceptance and the same error texts as the jar's ``MappingTable.compile`` (a port of its
``analyseBlock`` and ``build``), and the same table: rules in written order, each with the destinations
its default scope and each cluster scope offer, what the remainder does, and the salt of its keyed draw.

What a subject gets from the table (the engine's order): a literal rule equal to the subject first, else
the first wildcard rule in written order that matches it; no match leaves the subject unchanged. A
rule's destinations are those of the caller's cluster when the rule has any, else its cluster-less
ones; one is drawn by weight (an integer in [0, 100) against the running totals), the remainder keeping
the subject (through the identity transform of the source, as nats-server builds it) unless the source
is itself a destination, in which case the remainder is lost (NULL).

One job, as its twin's (MappingTable.scala): a table from text to what each release loads of it and what a
subject gets; long because nats-server's checks of a table and their texts are many."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .account_functions import NO_ACCOUNT, Context
from .account_functions import expand as expand_account_functions
from .conf_syntax import parse_mappings
from .conf_value import Arr, ConfSyntaxError, Integer, Null, Obj, Str, conf_text, go_text
from .destination_syntax import TokenSyntaxError, parse_go_int
from .go_bytes import go_lower
from .go_quote import go_quote
from .keyed_draw import text_salt
from .server_version import NEWEST, ServerVersion, resolve
from .subject_transform import Transform, apply_reference, compile_transform, crash_words
from .subjects import compile_filter, filter_matches, is_valid_subject, literal_tokens

# ---------------------------------------------------------------------------------------------------
# The model

DRAW = -1  # the choice draws by weight
DROP = -2  # every weight is 0 and nothing remains: the message is lost


@dataclass(frozen=True)
class Destination:
    """One destination a scope offers: its position among the rule's entries as written (``index``; -1
    for the remainder), its text as written (for the remainder: the identity destination of the source,
    nats-server's ``transformTokenize``), its weight (percent) and its compiled transform."""

    index: int
    destination: str
    weight: int
    transform: Transform  # the core grammar's

    @property
    def is_remainder(self) -> bool:
        return self.index < 0


@dataclass(frozen=True)
class Choice:
    """The destinations one rule offers one cluster scope (``cluster`` None: the cluster-less ones), in
    draw order (written order, the remainder last when there is one), with the running weight totals
    (``byWeight``: the first destination whose running total exceeds the draw), ``fixed`` (the index that
    is certain, ``DROP`` or ``DRAW``), the weight the written entries leave and whether it is lost."""

    cluster: str | None
    destinations: tuple[Destination, ...]
    running_totals: tuple[int, ...]
    fixed: int
    remainder_weight: int
    remainder_drops: bool

    @property
    def draws(self) -> bool:
        return self.fixed == DRAW

    @property
    def is_random(self) -> bool:
        return self.fixed == DRAW or any(getattr(d.transform, "is_random", False) for d in self.destinations)

    def pick(self, draw: int) -> int:
        """The destination chosen for a draw in [0, 100) (-1: dropped), as Choice.pick/pickKeyed."""
        if self.fixed >= 0:
            return self.fixed
        if self.fixed == DROP:
            return -1
        for i, total in enumerate(self.running_totals):
            if draw < total:
                return i
        return -1


@dataclass(frozen=True)
class Rule:
    """One rule: its position in written order, its source, whether it is found by equality (``literal``:
    no lone ``*`` or ``>`` token) and/or by matching (``wildcard``: a token ``*``, ``>`` or one starting
    with ``*``, which nats-server's source matching takes as ``*``), the salt of its keyed draw
    (KeyedDraw.salt(source)), its default choice and its cluster scopes' choices (in written order)."""

    index: int
    source: str
    literal: bool
    wildcard: bool
    salt: int
    default: Choice
    clusters: tuple[Choice, ...]

    def choice(self, cluster: str | None) -> Choice:
        if cluster is not None:
            for c in self.clusters:
                if c.cluster == cluster:
                    return c
        return self.default

    @property
    def scopes(self) -> tuple[Choice, ...]:
        return (self.default,) + self.clusters


@dataclass(frozen=True)
class MappingProblem:
    """One problem of a table: ``rule`` (its source; None when the text cannot be read), ``destination``
    (the entry concerned; None when the problem is the rule's), ``severity`` ('error': the server refuses it;
    'crash': it loads it and its process exits on the first message the destination maps; 'warning')."""

    rule: str | None
    destination: str | None
    severity: str
    message: str

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def is_crash(self) -> bool:
        return self.severity == "crash"

    def __str__(self) -> str:
        where = []
        if self.rule is not None:
            where.append(f"rule {go_quote(self.rule)}")
        if self.destination is not None:
            where.append(f"destination {go_quote(self.destination)}")
        return (", ".join(where) + ": " if where else "") + self.message


class InvalidMappings(ValueError):
    """An invalid mapping table: every error in ``problems``, the message the jar's
    InvalidMappingsException has (the first error, and how many more)."""

    def __init__(self, problems):
        self.problems = tuple(problems)
        more = len(self.problems) - 1
        super().__init__(f"invalid mappings: {self.problems[0]}" + (f" (and {more} more)" if more > 0 else ""))


@dataclass(frozen=True)
class MappingTable:
    """A compiled table: rules in written order, and the warnings its reading gave."""

    rules: tuple[Rule, ...]
    warnings: tuple[MappingProblem, ...]
    server_version: object

    @property
    def is_random(self) -> bool:
        return any(c.is_random for r in self.rules for c in r.scopes)

    @property
    def literal_rules(self) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.literal)

    @property
    def wildcard_rules(self) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.wildcard)

    def plan(self) -> list:
        """The table as the jar's ``MappingTable.planJson`` lists it (rules, destinations as written,
        and per scope the remainder and whether it is lost): for reports and differential tests."""
        out = []
        for r in self.rules:
            written = sorted(
                (
                    (d.index, d.destination, d.weight, c.cluster)
                    for c in r.scopes
                    for d in c.destinations
                    if d.index >= 0
                ),
                key=lambda x: x[0],
            )
            out.append(
                {
                    "rule_index": r.index,
                    "rule": r.source,
                    "matched_as": "literal" if r.literal else "wildcard",
                    "destinations": [
                        {"index": i, "destination": d, "weight": w, "cluster": c} for i, d, w, c in written
                    ],
                    "scopes": [
                        {"cluster": c.cluster, "remainder": c.remainder_weight, "remainder_drops": c.remainder_drops}
                        for c in r.scopes
                    ],
                }
            )
        return out


# ---------------------------------------------------------------------------------------------------
# Reading and checking (the jar's MappingTable.analyseBlock)

MappingsValue = str | dict


def mappings_text(mappings: MappingsValue) -> str:
    """The text both readers are given (functions._mappings_text sends it to the jar): a dict written in
    nats-server's configuration syntax (``conf_text``: the same values, types included), a str as it is."""
    if isinstance(mappings, dict):
        return conf_text(mappings)
    if isinstance(mappings, str):
        return mappings
    raise TypeError(f"mappings must be a str or a dict (a constant table), not {type(mappings).__name__}")


@dataclass(frozen=True)
class _Entry:
    subject: str
    weight: int
    cluster: str


def _is_pure_literal(source: str) -> bool:
    return not any(t.startswith("*") or t == ">" for t in source.split("."))


def _identity_destination(source: str) -> str:
    """nats-server's transformTokenize: the source as a destination that gives a subject back unchanged."""
    n = 0
    out = []
    for t in source.split("."):
        if t == "*":
            n += 1
            out.append(f"${n}")
        else:
            out.append(t)
    return ".".join(out)


def _is_jwt_entry(o: Obj) -> bool:
    """A JWT-shaped destination (`subject`, no `destination`): a config file's reader would reject `subject`."""
    return o.get("subject") is not None and not any(go_lower(k) in ("destination", "dest") for k, _ in o.entries)


DestinationCompiler = Callable[[str, str, object], Transform]


def _core_compiler(source: str, destination: str, version) -> Transform:
    return compile_transform(source, destination, strict=False, server_version=version)


def _reason_of(e: Exception) -> str | None:
    return getattr(e, "reason", None)


# Where a mappings block comes from, which decides how much of it a server loads (the jar's MappingSource).
CONFIG_FILE = (
    "config file"  # a config file's block (top-level or an account's): any error and the server does not start
)
ACCOUNT_JWT = (
    "account JWT"  # an account JWT's claim: a claim nats-io/jwt refuses refuses the account; else rule by rule
)


def mapping_source(block: Obj) -> str:
    """The source a table's own shape says (MappingSource.of): written as an account JWT writes it (every rule a
    list of ``{subject, weight, cluster}`` entries, at least one) it is a JWT's, anything else a config file's."""
    values = [v for _, v in block.entries]
    jwt_shaped = all(
        isinstance(v, Arr) and all(isinstance(o, Obj) and _is_jwt_entry(o) for o in v.items) for v in values
    ) and any(isinstance(v, Arr) and v.items for v in values)
    return ACCOUNT_JWT if jwt_shaped else CONFIG_FILE


@dataclass(frozen=True)
class MappingLoad:
    """What a server of one release loads of a mappings block (MappingTable.load): the ``applied`` rules (in
    written order), those ``left_out`` with the release's reason (an account JWT's rules it refuses: it loads
    the account without them) and every problem. ``refused``: the server refuses the file (a config's block)
    or the account (a JWT's); nothing of it is applied."""

    source: str
    applied: tuple[str, ...]
    left_out: tuple[tuple[str, str], ...]
    problems: tuple[MappingProblem, ...]

    @property
    def refused(self) -> bool:
        return any(p.is_error for p in self.problems)

    @property
    def crashes(self) -> tuple[MappingProblem, ...]:
        return tuple(p for p in self.problems if p.is_crash)


def compile_mappings(
    mappings: MappingsValue | Obj,
    server_version=None,
    compile_destination: DestinationCompiler | None = None,
    account: str | None = None,
) -> MappingTable:
    """The table ``mappings`` holds, as the given nats-server line (None: the newest) loads it (from where its
    shape says it was written: :func:`mapping_source`) for the account named ``account`` (its account functions
    resolved to the hash of that name; None: no account given). Raises :class:`InvalidMappings` with the jar's text
    when the jar would refuse it."""
    rules, loaded = analyse(
        mappings if isinstance(mappings, Obj) else mappings_text(mappings), server_version, compile_destination, account
    )
    if loaded.refused:
        raise InvalidMappings([p for p in loaded.problems if p.is_error])
    return MappingTable(tuple(rules), loaded.problems, server_version)


def validate_mappings(
    mappings: MappingsValue,
    server_version=None,
    compile_destination: DestinationCompiler | None = None,
    account: str | None = None,
) -> list[MappingProblem]:
    """Every error, crash and reading warning of the table (not the jar's overlap warnings)."""
    return list(analyse(mappings_text(mappings), server_version, compile_destination, account)[1].problems)


def load_mappings(
    mappings: MappingsValue | Obj, server_version=None, source: str | None = None, account: str | None = None
) -> MappingLoad:
    """What a server of ``server_version`` (None: the newest) loads of the table, read from ``source``
    (:data:`CONFIG_FILE` or :data:`ACCOUNT_JWT`; None: what its shape says), as the jar's MappingTable.load."""
    try:
        doc = mappings if isinstance(mappings, Obj) else parse_mappings(mappings_text(mappings))
    except ConfSyntaxError as e:
        return MappingLoad(CONFIG_FILE, (), (), (MappingProblem(None, None, "error", str(e)),))
    version = _resolve_version(server_version)
    return _analyse_block(doc, version, _core_compiler, source or mapping_source(doc), _context_of(account))[1]


def _context_of(account: str | None) -> Context:
    """Where an account's mappings are installed: `{{account-hash()}}` is its hash, the other account functions none."""
    return NO_ACCOUNT if account is None else Context(account)


def analyse(
    text: str | Obj,
    server_version=None,
    compile_destination: DestinationCompiler | None = None,
    account: str | None = None,
):
    """(the rules a server loads, its :class:`MappingLoad`) of a table's text, read from where its shape says."""
    if compile_destination is None:
        compile_destination = _core_compiler
        version = _resolve_version(server_version)
    else:
        version = server_version
    try:
        doc = text if isinstance(text, Obj) else parse_mappings(text)  # an Obj: a block read already
    except ConfSyntaxError as e:
        return [], MappingLoad(CONFIG_FILE, (), (), (MappingProblem(None, None, "error", str(e)),))
    return _analyse_block(doc, version, compile_destination, mapping_source(doc), _context_of(account))


def _resolve_version(server_version):

    if server_version is None or isinstance(server_version, ServerVersion):
        return server_version if server_version is not None else NEWEST
    return resolve(server_version)


class _RuleFailed(Exception):
    """The first failing check of a rule ends it (the jar's non-local return)."""


def _analyse_block(doc: Obj, version, compile_destination: DestinationCompiler, source: str, context: Context):
    """The block as a server of ``version`` loads it from ``source`` (the jar's analyseBlock): a config file's
    all or nothing; an account JWT's claims checked first (a failure refuses the account), then rule by rule,
    a rule the release refuses left out. A destination the release's process exits on is a crash."""
    if source == ACCOUNT_JWT:
        refusal = _jwt_claim_errors(doc)
        if refusal:
            return [], MappingLoad(source, (), (), tuple(refusal))
    checked, problems = _check_rules(doc, version, compile_destination, source, context)
    if source == CONFIG_FILE:
        kept, left_out, said = checked, [], problems
    else:
        failed: dict = {}
        for p in problems:
            if p.is_error:
                failed.setdefault(p.rule, p.message)
        words = f"nats-server {version} loads the account without this rule"
        kept = [c for c in checked if c[0] not in failed]
        left_out = [(r, failed[r]) for r in dict.fromkeys(k for k, _ in doc.entries) if r in failed]
        said = [
            MappingProblem(p.rule, p.destination, "warning", f"{p.message}: {words}") if p.is_error else p
            for p in problems
        ]
    crashes = [
        MappingProblem(rule, t.destination, "crash", crash_words(t, version))
        for rule, entries in kept
        for _, t in entries
        if getattr(t, "crashes_server", False)
    ]
    newest = _resolve_version(None) if compile_destination is _core_compiler else None
    rules = [_build_rule(i, rule, entries, compile_destination, newest) for i, (rule, entries) in enumerate(kept)]
    loaded = MappingLoad(source, tuple(r for r, _ in kept), tuple(left_out), tuple(said) + tuple(crashes))
    return rules, loaded


def _jwt_claim_errors(m: Obj) -> list[MappingProblem]:
    """nats-io/jwt's Mapping.Validate (v2.8.2), which nats-server runs on an account JWT before it loads the
    account, and what its JSON decoder refuses: any of them refuses the account (the jar's jwtClaimErrors)."""
    refused = "nats-server refuses the account (account validation failed)"

    def subject_errors(v: str) -> list[str]:
        if not v:
            return ["subject cannot be empty"]
        out = []
        if " " in v:
            out.append(f"subject {go_quote(v)} cannot have spaces")
        if v.startswith(".") or v.endswith("."):
            out.append(f"subject {go_quote(v)} cannot start or end with a `.`")
        if ".." in v:
            out.append(f"subject {go_quote(v)} cannot contain consecutive `.`")
        return out

    problems: list[MappingProblem] = []
    for rule, v in m.entries:

        def error(dest, message, rule=rule):
            return MappingProblem(rule, dest, "error", f"{message}: {refused}")

        if not isinstance(v, Arr):
            problems.append(error(None, f"a JWT mapping must be a list of entries, got {go_text(v)}"))
            continue
        decoded, undecodable = [], []
        for o in v.items:
            if not isinstance(o, Obj):
                undecodable.append(error(None, f"a JWT mapping entry must be an object, got {go_text(o)}"))
                continue
            s, w = o.get("subject"), o.get("weight")
            if s is None or isinstance(s, Null):
                subject = ""
            elif isinstance(s, Str):
                subject = s.value
            else:
                undecodable.append(error(None, f"a JWT mapping's subject must be a string, got {go_text(s)}"))
                continue
            if w is None or isinstance(w, Null):
                weight = 0
            elif isinstance(w, Integer) and 0 <= w.value <= 255:
                weight = w.value
            else:
                undecodable.append(
                    error(None, f"JWT mapping weight must be an integer 0..255 (uint8), got {go_text(w)}")
                )
                continue
            c = o.get("cluster")
            decoded.append((subject, 100 if weight == 0 else weight, c.value if isinstance(c, Str) else ""))
        if undecodable:
            problems += undecodable
            continue
        problems += [error(None, e) for e in subject_errors(rule)]
        problems += [error(d, e) for d, _, _ in decoded for e in subject_errors(d)]
        problems += [
            error(d, f"Mapping {go_quote(rule)} has a weight {w} that exceeds 100") for d, w, _ in decoded if w > 100
        ]
        totals: dict[str, int] = {}
        for _, w, cluster in decoded:
            totals[cluster] = totals.get(cluster, 0) + w
        for cluster in sorted(totals):
            if totals[cluster] > 100:
                problems.append(
                    error(
                        None,
                        f"Mapping {go_quote(rule)} exceeds 100% among all of it's weighted to mappings"
                        if not cluster
                        else f"Mapping {go_quote(rule)} in cluster {go_quote(cluster)} exceeds 100% among all of "
                        "it's weighted to mappings",
                    )
                )
    return problems


def _check_rules(doc: Obj, version, compile_destination: DestinationCompiler, source: str, context: Context):
    """nats-server's checks of each rule (parseAccountMapDest, AddWeightedMappings): the rules that pass (as
    (source, [(entry, transform)])), every problem."""
    problems: list = []

    def error(rule, dest, message):
        problems.append(MappingProblem(rule, dest, "error", message))

    def warning(rule, dest, message):
        problems.append(MappingProblem(rule, dest, "warning", message))

    seen_repeated = []
    for k in doc.repeated_keys:
        if k not in seen_repeated:
            seen_repeated.append(k)
    for k in seen_repeated:
        warning(
            k,
            None,
            f"rule {go_quote(k)} is written more than once: the last one replaces the others (as in nats-server)",
        )

    def parse_entry(rule: str, v) -> _Entry | None:
        if isinstance(v, Obj) and source == ACCOUNT_JWT:
            return jwt_entry(rule, v)
        if isinstance(v, Obj):
            dest = None
            for k, x in v.entries:
                if go_lower(k) in ("dest", "destination") and isinstance(x, Str):
                    dest = x.value
                    break
            subject = None
            weight = None
            cluster = ""
            for k, x in v.entries:
                field = go_lower(k)
                if field in ("dest", "destination"):
                    if isinstance(x, Str):
                        subject = x.value
                    else:
                        error(rule, None, f"Expected a string for the mapping destination, got {go_text(x)}")
                        return None
                elif field == "weight":
                    if isinstance(x, Str):
                        digits = x.value[:-1] if x.value.endswith("%") else x.value
                        n = parse_go_int(digits)
                        if n is None:
                            error(rule, dest, f"Invalid weight {go_quote(digits)} for mapping destination")
                            return None
                        w = n
                    elif isinstance(x, Integer):
                        w = x.value
                    else:
                        error(rule, dest, f"Unknown entry type for weight of {go_text(x)}")
                        return None
                    if w > 100 or w < 0:
                        error(rule, dest, f"Invalid weight {w} for mapping destination")
                        return None
                    weight = int(w)
                elif field == "cluster":
                    if isinstance(x, Str):
                        cluster = x.value
                    else:
                        error(rule, dest, f"Expected a string for the mapping destination's cluster, got {go_text(x)}")
                        return None
                else:
                    error(rule, dest, f"Unknown field {go_quote(k)} for mapping destination")
                    return None
            if weight is None:
                error(
                    rule,
                    dest,
                    f"Missing weight for mapping destination {go_quote(subject if subject is not None else '')}",
                )
                return None
            if subject is None:
                warning(rule, "", "an entry without a destination keeps a matching subject unchanged")
            return _Entry(subject if subject is not None else "", weight, cluster)
        error(rule, None, "Expected an entry for the mapping destination")
        return None

    def jwt_entry(rule: str, o: Obj) -> _Entry | None:
        # nats-io/jwt's WeightedMapping: a uint8 weight; a missing or 0 weight means 100.
        s = o.get("subject")
        subject = s.value if isinstance(s, Str) else None
        wv = o.get("weight")
        weight = None
        if wv is None or isinstance(wv, Null):
            weight = 0
        elif isinstance(wv, Integer) and 0 <= wv.value <= 255:
            weight = wv.value
        else:
            error(rule, subject, f"JWT mapping weight must be an integer 0..255 (uint8), got {go_text(wv)}")
        c = o.get("cluster")
        cluster = c.value if isinstance(c, Str) else ""
        if subject is None:
            error(rule, None, 'JWT mapping entry without a string "subject"')
            return None
        if weight is None:
            return None
        effective = 100 if weight == 0 else weight
        if effective > 100:
            error(rule, subject, f"Mapping {go_quote(rule)} has a weight {effective} that exceeds 100")
            return None
        return _Entry(subject, effective, cluster)

    def add_weighted(written: str, entries, prefix: str):
        """nats-server's AddWeightedMappings: the first failing check ends the rule; the account functions are
        resolved first, the source's then each destination's."""

        def expanded(subject: str) -> str | None:
            try:
                return expand_account_functions(subject, context, _resolve_version(version))
            except TokenSyntaxError as x:
                error(written, subject, prefix + x.reason)
                return None

        rule = expanded(written)
        if rule is None:
            return None
        seen = set()
        totals: dict = {}
        compiled = []
        for w in entries:
            subject = expanded(w.subject)
            if subject is None:
                return None
            e = replace(w, subject=subject)
            if e.subject in seen:
                error(rule, e.subject, f"{prefix}duplicate entry for {go_quote(e.subject)}")
                return None
            seen.add(e.subject)
            totals[e.cluster] = totals.get(e.cluster, 0) + e.weight
            if totals[e.cluster] > 100:
                error(rule, e.subject, f"{prefix}total weight needs to be <= 100")
                return None
            try:
                compiled.append((e, compile_destination(rule, e.subject, version)))
            except ValueError as x:
                reason = _reason_of(x)
                if reason is None:
                    raise
                error(rule, e.subject, prefix + reason)
                return None
        return rule, compiled

    checked = []
    for rule, v in doc.entries:
        if not is_valid_subject(rule):
            error(rule, None, f"Subject {go_quote(rule)} is not a valid subject")
            continue
        if isinstance(v, Str):
            c = add_weighted(
                rule, [_Entry(v.value, 100, "")], f"Error adding mapping for {go_quote(rule)} to {go_quote(v.value)} : "
            )
        elif isinstance(v, Arr):
            # As nats-server does: a bad entry is reported and the rule is checked without it.
            entries = [e for e in (parse_entry(rule, item) for item in v.items) if e is not None]
            c = add_weighted(rule, entries, f"Error adding mapping for {go_quote(rule)} : ")
        elif isinstance(v, Null):
            error(rule, None, "Unknown type <nil> for mapping destination")
            c = None
        else:
            e = parse_entry(rule, v)
            c = None if e is None else add_weighted(rule, [e], f"Error adding mapping for {go_quote(rule)} : ")
        if c is not None:
            checked.append(c)
    return checked, problems


def _build_rule(index: int, source: str, entries, compile_destination: DestinationCompiler, newest) -> Rule:
    """The jar's MappingTable.build for one rule."""
    lists_source = any(e.subject == source for e, _ in entries)
    written = [(e, t, i) for i, (e, t) in enumerate(entries)]

    def choice(cluster: str | None, scoped) -> Choice:
        total = sum(e.weight for e, _, _ in scoped)
        dests = [Destination(i, e.subject, e.weight, t) for e, t, i in scoped]
        if total != 100 and not lists_source:
            # nats-server's remainder: the subject unchanged, unless the source is listed (then: loss).
            # (built as the newest line builds it, whatever the table's line: the jar does the same)
            identity = _identity_destination(source)
            dests.append(Destination(-1, identity, 100 - total, compile_destination(source, identity, newest)))
        weights = [d.weight for d in dests]
        running = []
        acc = 0
        for w in weights:
            acc += w
            running.append(acc)
        certain = weights.index(100) if 100 in weights else -1
        fixed = certain if certain >= 0 else (DROP if sum(weights) == 0 else DRAW)
        remainder = 100 - sum(d.weight for d in dests if d.index >= 0)
        has_remainder_entry = any(d.index < 0 for d in dests)
        return Choice(
            cluster, tuple(dests), tuple(running), fixed, remainder, remainder > 0 and not has_remainder_entry
        )

    clusters = []
    for e, _, _ in written:
        if e.cluster and e.cluster not in clusters:
            clusters.append(e.cluster)
    default = choice(None, [w for w in written if not w[0].cluster])
    scoped = tuple(choice(name, [w for w in written if w[0].cluster == name]) for name in clusters)
    toks = source.split(".")
    literal = not any(t in ("*", ">") for t in toks)
    return Rule(index, source, literal, not _is_pure_literal(source), text_salt(source), default, scoped)


# ---------------------------------------------------------------------------------------------------
# A reference evaluator in plain Python (MappingTable.decide/explain on bytes): what the built expression
# must give, for tests without Spark.


@dataclass(frozen=True)
class Explanation:
    """subject_map_explain's struct, field for field (None where the jar's is NULL)."""

    rule: str | None
    rule_index: int | None
    matched_as: str | None
    cluster: str | None
    destination: str | None
    destination_index: int | None
    weight: int | None
    remainder: bool | None
    outcome: str
    result: str | None


def unknown_cluster_note(cluster: str, mappings, server_version=None) -> str | None:
    """Why ``cluster`` (a constant cluster name) is probably a mistake for this table: it scopes destinations
    to clusters and ``cluster`` is none of them, so it picks nothing (as no cluster would), which is what a
    column's name passed as a str gives. None when it is one of them, or the table scopes none or is invalid
    (the function itself reports that)."""
    try:
        table = compile_mappings(mappings, server_version)
    except (InvalidMappings, ValueError, TypeError):
        return None
    # r.clusters are the scoped choices: each names its cluster (the filter only tells mypy so).
    known = sorted({c.cluster for r in table.rules for c in r.clusters if c.cluster is not None})
    if not known or cluster in known:
        return None
    return (
        f"cluster={cluster!r} is no cluster of this table ({', '.join(known)}): every message gets the cluster-less "
        "destinations. cluster is the name of the cluster the messages entered; for a column of names, pass "
        f"F.col({cluster!r})"
    )


def find_rule(table: MappingTable, subject: str) -> Rule | None:
    """The rule that applies to a literal subject: the literal rule equal to it, else the first matching
    wildcard rule in written order (source matching: a token starting with `*` matches any one token)."""

    for r in table.rules:
        if r.literal and r.source == subject:
            return r
    toks = literal_tokens(subject.encode("utf-8", "surrogatepass"))
    if toks is None:  # not a literal subject: no wildcard rule applies (filter_matches needs tokens)
        return None
    for r in table.rules:
        if r.wildcard and filter_matches(_rule_filter(r), toks):
            return r
    return None


def _rule_filter(r: Rule):

    return compile_filter(r.source, source_quirk=True)


def explain_reference(
    table: MappingTable, subject: str | None, cluster: str | None = None, draw: int = 0, random_draw=None
) -> Explanation | None:
    """What subject_map_explain gives for `subject` when the weighted draw is `draw` (in [0, 100)) and
    `random_draw(index, n)` gives `{{random(n)}}` tokens; None where it is NULL."""

    if subject is None:
        return None
    raw = subject.encode("utf-8", "surrogatepass")
    if literal_tokens(raw) is None:
        return None
    r = find_rule(table, subject)
    if r is None:
        return Explanation(None, None, None, None, None, None, None, None, "no_match", subject)
    choice = r.choice(cluster)
    picked = choice.pick(draw)
    if picked < 0:
        result = None
        d = None
    else:
        d = choice.destinations[picked]
        out = apply_reference(d.transform, raw, random_draw)
        result = None if out is None else _text(out)
    destination: str | None
    weight: int
    if d is None or d.is_remainder:
        entry, destination, weight = -1, None, choice.remainder_weight
    else:
        entry, destination, weight = d.index, d.destination, d.weight
    if result is None and d is not None and getattr(d.transform, "crashes_server", False):
        outcome = "crash"  # the release's process exits on the message
    else:
        outcome = "dropped" if result is None else "unchanged" if result == subject else "mapped"
    return Explanation(
        r.source,
        r.index,
        "literal" if r.literal and r.source == subject else "wildcard",
        choice.cluster,
        destination,
        None if entry < 0 else entry,
        weight,
        entry < 0,
        outcome,
        result,
    )


def _text(subject: bytes) -> str:
    """A result as text: a character cut in two (split/slice/left/right count bytes) as surrogate escapes, the
    way the tests read a STRING's bytes back."""
    try:
        return subject.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return subject.decode("utf-8", "surrogateescape")


def map_reference(
    table: MappingTable, subject: str | None, cluster: str | None = None, draw: int = 0, random_draw=None
) -> str | None:
    """What subject_map gives (see :func:`explain_reference`)."""
    x = explain_reference(table, subject, cluster, draw, random_draw)
    return None if x is None else x.result
