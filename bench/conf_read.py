"""The Python config reader (grammar/conf_syntax.py) on a big mappings table, CPU time, best of
rounds; with several source trees, each tree's reader on the same text in one run, and the ratios to the
first (the jar's reader is timed by BigTableBench on the same table).

    scripts/sbt "bench/runMain subjxform.bench.BigTables 100000 $PWD/target/table-100000.conf"
    python bench/conf_read.py target/table-100000.conf [--src OTHER/python/src ...]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def reader(src: Path):
    """The `parse_mappings` of the tree at `src` (python/src), loaded under a name of its own: its grammar
    package (subjxform/grammar, or portable/ with _confsyntax in a tree from before the grammar's move)."""
    folder, module = src / "subjxform" / "grammar", "conf_syntax"
    if not (folder / f"{module}.py").is_file():
        folder, module = src / "subjxform" / "portable", "_confsyntax"
    package = f"_bench_grammar_{abs(hash(str(src)))}"
    spec = importlib.util.spec_from_file_location(package, folder / "__init__.py", submodule_search_locations=[])
    assert spec is not None
    pkg = importlib.util.module_from_spec(spec)
    pkg.__path__ = [str(folder)]  # type: ignore[attr-defined]
    sys.modules[package] = pkg  # (its __init__ is not run: the modules import each other relatively)
    return importlib.import_module(f"{package}.{module}").parse_mappings


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("table", type=Path)
    ap.add_argument("--src", type=Path, action="append", default=[], help="another tree's python/src")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    text = args.table.read_text(encoding="utf-8")
    trees = [HERE.parent / "python" / "src", *args.src]
    times = []
    for src in trees:
        parse = reader(src.resolve())
        rules = len(parse(text).entries)
        best = min(_cpu(parse, text) for _ in range(args.rounds))
        times.append(best)
        print(
            f"{src}: {rules} rules read in {best * 1000:.0f} ms of CPU ({best / rules * 1e6:.1f} us a rule)"
            f"  {best / times[0]:.2f}x"
        )
    return 0


def _cpu(parse, text: str) -> float:
    t0 = time.process_time()
    parse(text)
    return time.process_time() - t0


if __name__ == "__main__":
    sys.exit(main())
