"""Turns JMH's JSON (run with -prof gc) into bench/JMH.md, optionally beside `go test -bench` output
of nats-server on the same cases (measured separately; see bench/README.md)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
from pathlib import Path

from cases import read_cases

BENCH = Path(__file__).resolve().parent


def read_go(path: str) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(kind, case) -> (wall ns/op, cpu ns/op, B/op, allocs/op) from `go test -bench -benchmem` lines
    (cpu-ns/op: a metric the Go benchmark reports from its thread's CPU time)."""
    out = {}
    pat = re.compile(
        r"^BenchmarkSubjxformCases/(\w+)/(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) cpu-ns/op"
        r"\s+(\d+) B/op\s+(\d+) allocs/op"
    )
    for line in Path(path).read_text().splitlines():
        m = pat.match(line.strip())
        if m:
            key = (m.group(1), m.group(2))
            val = tuple(float(m.group(i)) for i in range(3, 7))
            old = out.get(key, val)
            # best of repeated -count runs, each measure on its own
            out[key] = tuple(min(a, b) for a, b in zip(old, val))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("jmh_json")
    ap.add_argument("sizes_tsv")
    ap.add_argument("cpu_tsv", help="CpuTimeBench output: name<TAB>CPU ns/op")
    ap.add_argument("--go", help="go test -bench output for the same cases")
    ap.add_argument("--out", default=str(BENCH / "JMH.md"))
    args = ap.parse_args()

    cases = read_cases()
    sizes = {}
    for line in Path(args.sizes_tsv).read_text().splitlines():
        name, out_bytes, heap_bytes = line.split("\t")
        sizes[name] = (float(out_bytes), float(heap_bytes))
    cpu = dict(
        (row.split("\t")[0], float(row.split("\t")[1])) for row in Path(args.cpu_tsv).read_text().splitlines() if row
    )
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
        if r["params"]["name"] == "copy_floor":
            floor = (score, err, alloc)
        else:
            rows[r["params"]["name"]] = (score, err, alloc)

    lines = [
        "# Engine micro-benchmarks",
        "",
        f"Written by `bash bench/run.sh --jmh` on {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; {jvm}.",
        "One compiled transform per case of bench/cases.tsv applied to the 1024 subjects of "
        "bench/subjects-sample.txt in turn (`SubjectTransform.apply` on UTF-8 bytes with a reused Workspace).",
        "",
        "- *JMH ns/op*: wall time, mean ± 99.9% error (JMH, 1 fork). On shared cores these swing widely.",
        "- *CPU ns/op*: the same loop timed by the thread's CPU time (CpuTimeBench), best of 7 rounds of "
        "4M operations: the steadier number, and the one compared with nats-server.",
        "- *bytes/op*: JMH `-prof gc` (`gc.alloc.rate.norm`); *result array*: the mean heap size of the "
        "returned byte array. bytes/op = result array: nothing else is allocated.",
    ]
    if go:
        lines += [
            "- *nats-server*: a Go benchmark (`go test -bench`, same machine, measured separately; its code is "
            "not in this repository) of `subjectTransform.Match` (tokenize, validate, match, transform: the same "
            "work as `apply`) and `TransformSubject` (no validation or matching), on the same cases and "
            "subjects, timed by thread CPU time as well; best of the runs.",
        ]
    lines += [""]
    head = "| case | src -> dest | JMH ns/op | CPU ns/op | bytes/op | result array |"
    sep = "|---|---|---:|---:|---:|---:|"
    if go:
        head += " Go Match CPU ns/op | Go B/op | Go allocs/op | Go TransformSubject CPU ns/op | Go Match / subjxform |"
        sep += "---:|---:|---:|---:|---:|"
    lines += [head, sep]
    if floor:
        lines.append(
            f"| (floor: copy the subject) | `Arrays.copyOf` | {floor[0]:.1f} ± {floor[1]:.1f} | "
            f"{cpu.get('copy_floor', float('nan')):.1f} | {floor[2]:.1f} | |" + (" | | | | |" if go else "")
        )
    for name in cases:
        if name not in rows:
            continue
        score, err, alloc = rows[name]
        src, dest = cases[name]
        mine = cpu.get(name, float("nan"))
        line = (
            f"| {name} | `{src}` -> `{dest}` | {score:.1f} ± {err:.1f} | {mine:.1f} | {alloc:.1f} | "
            f"{sizes.get(name, (0, 0))[1]:.1f} |"
        )
        if go:
            m = go.get(("Match", name))
            t = go.get(("TransformSubject", name))
            line += (
                f" {m[1]:.1f} | {m[2]:.0f} | {m[3]:.0f} | {t[1]:.1f} | {m[1] / mine:.1f} x |"
                if m and t
                else " | | | | |"
            )
        lines.append(line)
    lines.append("")
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
