"""One small expression tree, rendered two ways: to SQL text (``sql_expression``, SQL warehouses) and to a
PySpark Column (classic and Spark Connect alike). Every portable function is built once as a tree, then
rendered, so the logic is never written twice.

Spark registers its operators as functions by name (``^``, ``&``, ``+``, ``%``, ``=``, ``shiftleft`` ...),
so one :class:`Call` node covers functions and operators alike. Only Spark's built-in functions are
named: see :func:`function_names`, which the tests use to prove the tree never names a subjxform one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


class Node:
    """An expression; build with the helpers below (call, lit, case, ...)."""

    # Operators, so that building a tree reads like arithmetic.
    def __eq__(self, other):
        return call("=", self, _node(other))

    def __hash__(self):
        return id(self)

    def __add__(self, o):
        return call("+", self, _node(o))

    def __sub__(self, o):
        return call("-", self, _node(o))

    def __mul__(self, o):
        return call("*", self, _node(o))

    def __mod__(self, o):
        return call("%", self, _node(o))

    def __xor__(self, o):
        return call("^", self, _node(o))

    def __and__(self, o):
        return call("&", self, _node(o))

    def __or__(self, o):
        return call("|", self, _node(o))

    def __lt__(self, o):
        return call("<", self, _node(o))

    def __le__(self, o):
        return call("<=", self, _node(o))

    def __gt__(self, o):
        return call(">", self, _node(o))

    def __ge__(self, o):
        return call(">=", self, _node(o))


@dataclass(eq=False)
class Call(Node):
    name: str
    args: tuple[Node, ...]


@dataclass(eq=False)
class Lit(Node):
    value: Any  # str, int (a BIGINT unless sql_type says otherwise), bool, None
    sql_type: str | None = None  # for NULL or an INT: "string", "bigint", "int", "boolean"


@dataclass(eq=False)
class Input(Node):
    """A value given at render time: "subject", "key", ..."""

    name: str


@dataclass(eq=False)
class Case(Node):
    whens: tuple[tuple[Node, Node], ...]
    otherwise: Node | None


@dataclass(eq=False)
class Var(Node):
    """A lambda's parameter."""

    name: str


@dataclass(eq=False)
class Aggregate(Node):
    """Spark's ``aggregate(array, start, (acc, x) -> merge)``: FNV-1a over a key's characters (a higher-order
    function keeps its stage out of whole-stage codegen; an unrolled chain was slower, see _build.fnv1a32)."""

    array: Node
    start: Node
    acc: str
    element: str
    merge: Node


@dataclass(eq=False)
class Let(Node):
    """`body` with Var(name) bound to `value`, read once: ``transform(array(value), name -> body)[0]``.
    A tree has no shared bindings otherwise: a value read k times would be written out k times, and a
    chain of such steps (SplitMix64) grows exponentially. Only the keyed draws use it."""

    value: Node
    name: str
    body: Node


_let_names = iter(range(1, 1 << 62))


def let(value, body: Callable[[Node], Node]) -> Let:
    """`body(v)` with v bound to `value` (a fresh lambda variable)."""
    name = f"__sx{next(_let_names)}"
    return Let(_node(value), name, _node(body(Var(name))))


def _node(v) -> Node:
    return v if isinstance(v, Node) else lit(v)


def call(name: str, *args) -> Call:
    return Call(name, tuple(_node(a) for a in args))


def lit(value, sql_type: str | None = None) -> Lit:
    return Lit(value, sql_type)


def null(sql_type: str) -> Lit:
    return Lit(None, sql_type)


def case(*whens, otherwise=None) -> Case:
    return Case(tuple((_node(c), _node(v)) for c, v in whens), None if otherwise is None else _node(otherwise))


def when(cond, value, otherwise=None) -> Case:
    return case((cond, value), otherwise=otherwise)


def shared_case(*whens, otherwise=None) -> Node:
    """A CASE over STRING values, written ``elt(CASE WHEN c1 THEN 1 ... END, v1, ..., vk)``. elt evaluates only
    the value it picks, as a CASE does, but Spark's common-subexpression elimination looks inside elt's values
    and never inside a CASE's: a piece that several values (or a value and a condition) use is computed once
    per row, before any of them, instead of once per use. Before any of them: such a piece is computed on every
    row, picked or not (so a shared piece must be cheap or needed by most rows; see _build._has_token)."""
    values = [_node(v) for _, v in whens] + ([] if otherwise is None else [_node(otherwise)])
    index = case(
        *[(c, lit(i + 1, "int")) for i, (c, _) in enumerate(whens)],
        otherwise=None if otherwise is None else lit(len(whens) + 1, "int"),
    )
    return call("elt", index, *values)


SUBJECT = Input("subject")


def walk(node: Node):
    """Every node of the tree, each once."""
    seen = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        if isinstance(n, Call):
            stack.extend(n.args)
        elif isinstance(n, Case):
            for c, v in n.whens:
                stack.extend((c, v))
            if n.otherwise is not None:
                stack.append(n.otherwise)
        elif isinstance(n, Aggregate):
            stack.extend((n.array, n.start, n.merge))
        elif isinstance(n, Let):
            stack.extend((n.value, n.body))


def function_names(node: Node) -> set:
    names = {n.name for n in walk(node) if isinstance(n, Call)}
    if any(isinstance(n, Aggregate) for n in walk(node)):
        names.add("aggregate")
    if any(isinstance(n, Let) for n in walk(node)):
        names.update({"transform", "array"})
    return names


# ---------------------------------------------------------------------------------------------------
# SQL text

_OPERATORS = {"=", "+", "-", "*", "%", "^", "&", "|", "<", "<=", ">", ">=", "AND", "OR"}


def sql_string(s: str) -> str:
    """A Spark SQL string literal: quotes and backslashes escaped, control characters as \\u escapes."""
    out = ["'"]
    for c in s:
        if c == "'":
            out.append("\\'")
        elif c == "\\":
            out.append("\\\\")
        elif ord(c) < 0x20 or ord(c) == 0x7F or 0xD800 <= ord(c) <= 0xDFFF:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    out.append("'")
    return "".join(out)


def _sql_lit(n: Lit) -> str:
    v = n.value
    if v is None:
        return f"CAST(NULL AS {(n.sql_type or 'string').upper()})"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Decimal):
        return f"{v}BD"
    if isinstance(v, int):
        if n.sql_type == "int":
            return str(v)
        return f"{v}L" if v != -(2**63) else "(-9223372036854775807L - 1L)"
    if isinstance(v, str):
        return sql_string(v)
    raise TypeError(f"no SQL literal for {v!r}")


def to_sql(node: Node, inputs: dict[str, str]) -> str:
    """The tree as Spark SQL text; `inputs` gives each Input's SQL (e.g. {"subject": "`subject`"})."""
    memo: dict[int, str] = {}

    def r(n: Node) -> str:
        k = id(n)
        if k in memo:
            return memo[k]
        if isinstance(n, Lit):
            s = _sql_lit(n)
        elif isinstance(n, Input):
            s = f"({inputs[n.name]})"
        elif isinstance(n, Var):
            s = n.name
        elif isinstance(n, Call):
            if n.name in _OPERATORS and len(n.args) == 2:
                s = f"({r(n.args[0])} {n.name} {r(n.args[1])})"
            elif n.name == "NOT":
                s = f"(NOT {r(n.args[0])})"
            elif n.name == "cast":
                s = f"CAST({r(n.args[0])} AS {_type_of(n)})"
            else:
                s = f"{n.name}({', '.join(r(a) for a in n.args)})"
        elif isinstance(n, Case):
            parts = " ".join(f"WHEN {r(c)} THEN {r(v)}" for c, v in n.whens)
            other = f" ELSE {r(n.otherwise)}" if n.otherwise is not None else ""
            s = f"CASE {parts}{other} END"
        elif isinstance(n, Aggregate):
            s = f"aggregate({r(n.array)}, {r(n.start)}, ({n.acc}, {n.element}) -> {r(n.merge)})"
        elif isinstance(n, Let):
            s = f"transform(array({r(n.value)}), {n.name} -> {r(n.body)})[0]"
        else:
            raise TypeError(n)
        memo[k] = s
        return s

    return r(node)


# ---------------------------------------------------------------------------------------------------
# PySpark Column


def to_column(node: Node, inputs: dict[str, Any]):
    """The tree as a PySpark Column; `inputs` gives each Input's Column."""
    from pyspark.sql import functions as F

    def render(n: Node, env: dict[str, Any], memo: dict[int, Any]):
        k = id(n)
        if k in memo:
            return memo[k]
        if isinstance(n, Lit):
            if n.value is None:
                c = F.lit(None).cast(n.sql_type or "string")
            elif isinstance(n.value, Decimal):
                digits = len(str(abs(n.value)))
                c = F.lit(n.value).cast(f"decimal({max(digits, 1)},0)")
            elif isinstance(n.value, bool) or isinstance(n.value, str):
                c = F.lit(n.value)
            elif n.sql_type == "int":
                c = F.lit(n.value).cast("int")
            else:
                c = F.lit(n.value).cast("bigint")
        elif isinstance(n, Input):
            c = inputs[n.name]
        elif isinstance(n, Var):
            c = env[n.name]
        elif isinstance(n, Call):
            if n.name == "cast":
                c = render(n.args[0], env, memo).cast(_type_of(n))
            elif n.name == "AND":
                c = render(n.args[0], env, memo) & render(n.args[1], env, memo)
            elif n.name == "OR":
                c = render(n.args[0], env, memo) | render(n.args[1], env, memo)
            elif n.name == "NOT":
                c = ~render(n.args[0], env, memo)
            elif n.name in _COLUMN_OPERATORS:
                # call_function parses its name as an identifier: operators go through Column's methods.
                c = _COLUMN_OPERATORS[n.name](render(n.args[0], env, memo), render(n.args[1], env, memo))
            else:
                c = F.call_function(n.name, *[render(a, env, memo) for a in n.args])
        elif isinstance(n, Case):
            c = None
            for cond, v in n.whens:
                cv, vv = render(cond, env, memo), render(v, env, memo)
                c = F.when(cv, vv) if c is None else c.when(cv, vv)
            assert c is not None  # a CASE has a WHEN (case() requires one)
            if n.otherwise is not None:
                c = c.otherwise(render(n.otherwise, env, memo))
        elif isinstance(n, Aggregate):
            # (PySpark reads the lambda's parameter count: exactly two, nothing defaulted.)
            agg = n

            def merge(acc, x):
                # A lambda's body is rendered afresh for its parameters (nothing memoized across them).
                return render(agg.merge, {**env, agg.acc: acc, agg.element: x}, {})

            c = F.aggregate(render(n.array, env, memo), render(n.start, env, memo), merge)
        elif isinstance(n, Let):
            bound = n

            def body(v):
                return render(bound.body, {**env, bound.name: v}, {})

            c = F.transform(F.array(render(n.value, env, memo)), body).getItem(0)
        else:
            raise TypeError(n)
        memo[k] = c
        return c

    return render(node, {}, {})


_COLUMN_OPERATORS = {
    "=": lambda a, b: a == b,
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "%": lambda a, b: a % b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "^": lambda a, b: a.bitwiseXOR(b),
    "&": lambda a, b: a.bitwiseAND(b),
    "|": lambda a, b: a.bitwiseOR(b),
}


def _type_of(cast_call: Call) -> str:
    """The SQL type a cast() node names (its second argument, a literal)."""
    target = cast_call.args[1]
    assert isinstance(target, Lit)
    return target.value


def and_(*conds) -> Node:
    given = [c for c in conds if c is not None]
    if not given:
        return lit(True)
    out = given[0]
    for c in given[1:]:
        out = Call("AND", (out, c))
    return out


def not_(c: Node) -> Node:
    return Call("NOT", (c,))


def cast(n: Node, sql_type: str) -> Node:
    return Call("cast", (n, Lit(sql_type)))


Renderer = Callable[[Node, dict[str, Any]], Any]
