"""Turns JMH's JSON (run with -prof gc) into bench/JMH.md, optionally beside `go test -bench` output
of nats-server on the same cases (measured separately; see bench/README.md)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def read_cases() -> dict[str, tuple[str, str]]:
    out = {}
    for line in (BENCH / "cases.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, src, dest = line.split("\t")
            out[name] = (src, dest)
    return out


def read_go(path: str) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(kind, case) -> (ns/op, B/op, allocs/op) from `go test -bench -benchmem` lines."""
    out = {}
    pat = re.compile(r"^BenchmarkSubjxformCases/(\w+)/(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+(\d+) B/op\s+(\d+) allocs/op")
    for line in Path(path).read_text().splitlines():
        m = pat.match(line.strip())
        if m:
            key = (m.group(1), m.group(2))
            val = (float(m.group(3)), float(m.group(4)), float(m.group(5)))
            out[key] = min(out.get(key, val), val)  # best of repeated -count runs
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("jmh_json")
    ap.add_argument("sizes_tsv")
    ap.add_argument("--go", help="go test -bench output for the same cases")
    ap.add_argument("--out", default=str(BENCH / "JMH.md"))
    args = ap.parse_args()

    cases = read_cases()
    sizes = {}
    for line in Path(args.sizes_tsv).read_text().splitlines():
        name, out_bytes, heap_bytes = line.split("\t")
        sizes[name] = (float(out_bytes), float(heap_bytes))
    results = json.loads(Path(args.jmh_json).read_text())
    go = read_go(args.go) if args.go else {}

    rows = {}
    floor = None
    jvm = ""
    for r in results:
        jvm = f"{r.get('vmName', '')} {r.get('jdkVersion', '')}"
        score = r["primaryMetric"]["score"]
        err = r["primaryMetric"]["scoreError"]
        alloc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
        if r["benchmark"].endswith("CopyFloorBench.copy"):
            floor = (score, err, alloc)
        else:
            rows[r["params"]["name"]] = (score, err, alloc)

    lines = [
        "# Engine micro-benchmarks (JMH)",
        "",
        f"Written by `bash bench/run.sh --jmh` on {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; {jvm}.",
        "One compiled transform per case of bench/cases.tsv applied to the 1024 subjects of "
        "bench/subjects-sample.txt in turn (`SubjectTransform.apply` on UTF-8 bytes with a reused Workspace).",
        "bytes/op: JMH `-prof gc` (`gc.alloc.rate.norm`); *result array* is the mean heap size of the "
        "returned byte array, so bytes/op = result array means nothing else is allocated.",
    ]
    if go:
        lines += [
            "nats-server: `go test -bench` of its `subjectTransform.Match` (tokenize, validate, match, transform: "
            "the same work) and `TransformSubject` (no validation or matching) on the same cases and subjects, "
            "measured separately on the same machine (nats-server's code is not part of this repository).",
        ]
    lines += [""]
    head = "| case | src -> dest | ns/op | bytes/op | result array (bytes) |"
    sep = "|---|---|---:|---:|---:|"
    if go:
        head += " nats-server Match ns/op | B/op | allocs/op | TransformSubject ns/op | Match / subjxform |"
        sep += "---:|---:|---:|---:|---:|"
    lines += [head, sep]
    if floor:
        lines.append(f"| (floor: copy the subject) | `Arrays.copyOf` | {floor[0]:.1f} ± {floor[1]:.1f} | "
                     f"{floor[2]:.1f} | |" + (" | | | | |" if go else ""))
    for name in cases:
        if name not in rows:
            continue
        score, err, alloc = rows[name]
        src, dest = cases[name]
        line = f"| {name} | `{src}` -> `{dest}` | {score:.1f} ± {err:.1f} | {alloc:.1f} | {sizes.get(name, (0, 0))[1]:.1f} |"
        if go:
            m = go.get(("Match", name))
            t = go.get(("TransformSubject", name))
            line += (f" {m[0]:.1f} | {m[1]:.0f} | {m[2]:.0f} | {t[0]:.1f} | {m[0] / score:.2f} |" if m and t
                     else " | | | | |")
        lines.append(line)
    lines.append("")
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
