"""The per-row path's shape in bytecode, read from the line's jar: what HotSpot's JIT must inline into
Spark's generated row loop stays under its inlining size, and no exception handler sits on that path.

Both were measured regressions (bench/guard.py, issue 21): `SubjectTransform.tokensOnly` grew to 338
bytes, past the 325 of `-XX:FreqInlineSize`, and stopped being inlined; an exception handler for a
too-long result in the generated code (or anything inlined into it) cost every row ~30 ns, thrown or
not. A benchmark sees such a change only as noise on a shared machine; its bytecode does not move.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from subjxform.session import jar_path

pytestmark = pytest.mark.compat

# HotSpot's default -XX:FreqInlineSize (x86_64 and aarch64, Java 8 to 21): the largest method, in bytes
# of bytecode, that C2 inlines at a hot call site.
FREQ_INLINE_SIZE = 325


def methods(jar: Path, class_name: str) -> dict[str, tuple[int, int]]:
    """name + descriptor -> (bytecode length, exception handlers) of each method of a class in the jar."""
    with zipfile.ZipFile(jar) as z:
        data = z.read(class_name.replace(".", "/") + ".class")
    pos = 10
    count = struct.unpack_from(">H", data, 8)[0]
    utf8: dict[int, str] = {}
    i = 1
    while i < count:  # the constant pool: only its UTF-8 entries are needed, the others are skipped
        tag = data[pos]
        if tag == 1:
            length = struct.unpack_from(">H", data, pos + 1)[0]
            utf8[i] = data[pos + 3 : pos + 3 + length].decode("utf-8", "replace")
            pos += 3 + length
        elif tag in (5, 6):  # long, double: two slots
            pos += 9
            i += 1
        else:
            pos += {3: 5, 4: 5, 7: 3, 8: 3, 9: 5, 10: 5, 11: 5, 12: 5, 15: 4, 16: 3, 17: 5, 18: 5, 19: 3, 20: 3}[tag]
        i += 1
    pos += 6  # access flags, this, super
    interfaces = struct.unpack_from(">H", data, pos)[0]
    pos += 2 + 2 * interfaces

    def members(pos: int, keep: dict | None) -> int:
        n = struct.unpack_from(">H", data, pos)[0]
        pos += 2
        for _ in range(n):
            _, name, descriptor, attributes = struct.unpack_from(">HHHH", data, pos)
            pos += 8
            for _ in range(attributes):
                attribute, length = struct.unpack_from(">HI", data, pos)
                if keep is not None and utf8[attribute] == "Code":
                    code_length = struct.unpack_from(">I", data, pos + 10)[0]
                    handlers = struct.unpack_from(">H", data, pos + 14 + code_length)[0]
                    keep[utf8[name] + utf8[descriptor]] = (code_length, handlers)
                pos += 6 + length
        return pos

    found: dict[str, tuple[int, int]] = {}
    pos = members(pos, None)  # fields
    members(pos, found)
    return found


def method(jar: Path, class_name: str, name: str) -> tuple[int, int]:
    """The one method called `name` (its descriptor aside) whose bytecode is largest."""
    found = [v for k, v in methods(jar, class_name).items() if k.split("(")[0] == name]
    assert found, f"{class_name}.{name} is not in {jar.name}"
    return max(found)


JAR = Path(jar_path())

# (class, method): each must be inlined where the row loop calls it, so none may grow past the limit.
INLINED = [
    ("subjxform.spark.PerRow$", "transform"),
    ("subjxform.spark.PerRow$", "filterTransform"),
    ("subjxform.spark.PerRow$", "map"),
    ("subjxform.spark.PerRow$", "result"),
    ("subjxform.spark.PlanCache", "get"),
    ("subjxform.engine.Workspace", "tokenize"),
    ("subjxform.engine.Workspace$", "newResult"),
    ("subjxform.engine.SubjectFilter", "matchesTokens"),
    ("subjxform.engine.SubjectTransform", "tokensOnly"),
    ("subjxform.engine.SubjectTransform", "tokensOnlySize"),
]


@pytest.mark.parametrize("class_name, name", INLINED, ids=[f"{c.split('.')[-1]}.{m}" for c, m in INLINED])
def test_what_the_row_loop_inlines_stays_under_the_jit_inlining_size_without_a_handler(class_name, name):
    size, handlers = method(JAR, class_name, name)
    assert size <= FREQ_INLINE_SIZE, f"{class_name}.{name}: {size} bytes of bytecode, over {FREQ_INLINE_SIZE}"
    assert handlers == 0, f"{class_name}.{name} has an exception handler: inlined into the row loop, it costs every row"


def test_the_too_long_handler_stays_in_the_engine_frame_the_jit_does_not_inline():
    # SubjectTransform.run catches a too-long result and returns Workspace.TooLong: its handler is
    # harmless only while run itself is compiled on its own, i.e. too big to be inlined into the loop.
    size, handlers = method(JAR, "subjxform.engine.SubjectTransform", "run")
    assert handlers == 1
    assert size > FREQ_INLINE_SIZE, f"SubjectTransform.run: {size} bytes; inlined, its handler would be in the row loop"


def test_the_reader_reads_sizes_a_compiler_gives():
    # The reader itself: a method of known shape has the size and handler count javac/scalac gave it.
    size, handlers = method(JAR, "subjxform.engine.Workspace$", "orThrow")
    assert 0 < size < 40 and handlers == 0
    assert method(JAR, "subjxform.spark.PerRow$", "explainMap")[1] == 1  # its one documented handler
