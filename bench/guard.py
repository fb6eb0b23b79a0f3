"""The floor guard: subject_transform's per-row cost against the floor, for this jar and a previous one.

    python bench/guard.py [--ref REF | --previous-jar JAR] [--rows 3000000] [--rounds 5]

Two Spark sessions run side by side, one per jar (both jars hold the same class names, so one JVM cannot
load both), each on the same cached data: the bench's own mix of subjects (bench.py) and a 4-token
telemetry shape. Rounds alternate between them (previous, current, current, previous, ...), so the
load the machine has at a given moment falls on both. Printed: ns/row per case (best of the rounds)
and the ratios the issue set targets for, each as the median of the rounds' ratios (both times of a
ratio come from the same session and the same round) with their spread:

  - constant reorder / concat(subject, '') on the telemetry shape (`telemetry.*.*.*` -> `metrics.$3.$1.$2`)
    and on the bench mix (`*.*.>` -> `$2.$1.>`);
  - src/dest from columns (4 distinct transforms, row by row) / the constant form;

and over the floor, the functions that count bytes (split, slice, left, right) on the same mix.

The previous jar is built from a git ref (default: the commit this branch forked from main) with that
commit's own build, in target/guard/<commit>/, once. It prints numbers; it is not a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
GUARD_DIR = ROOT / "target" / "guard"

TELEMETRY_SOURCE, TELEMETRY_DEST = "telemetry.*.*.*", "metrics.$3.$1.$2"
MIX_SOURCE, MIX_DEST = "*.*.>", "$2.$1.>"
# Every function that counts bytes (split, slice, left, right), once each, on the bench's ASCII mix.
BYTES_DEST = (
    "$1.{{split(2,-)}}.{{left(2,3)}}.{{right(2,3)}}.{{splitfromleft(2,2)}}.{{splitfromright(2,2)}}"
    ".{{slicefromleft(2,2)}}.{{slicefromright(2,3)}}.>"
)

# name -> (data set, SQL expression). Each query is select(expr).agg(sum(length(...))).
CASES = {
    "telemetry concat": ("telemetry", "concat(subject, '')"),
    "telemetry reorder": ("telemetry", f"subject_transform(subject, '{TELEMETRY_SOURCE}', '{TELEMETRY_DEST}')"),
    "mix passthrough": ("mix", "subject"),
    "mix concat": ("mix", "concat(subject, '')"),
    "mix reorder": ("mix", f"subject_transform(subject, '{MIX_SOURCE}', '{MIX_DEST}')"),
    "mix columns, 4 distinct": ("mix", "subject_transform(subject, src, dest)"),
    "mix byte functions": ("mix", f"subject_transform(subject, '{MIX_SOURCE}', '{BYTES_DEST}')"),
}

# (label, numerator case, denominator case, the target)
RATIOS = [
    ("telemetry reorder / concat", "telemetry reorder", "telemetry concat", 1.07),
    ("mix reorder / concat", "mix reorder", "mix concat", 1.07),
    ("columns (4 distinct) / constant", "mix columns, 4 distinct", "mix reorder", 1.25),
]

# Cost over the floor in ns/row: (label, case, floor case)
NET = [
    ("telemetry reorder - concat", "telemetry reorder", "telemetry concat"),
    ("mix reorder - concat", "mix reorder", "mix concat"),
    ("columns (4 distinct) - constant", "mix columns, 4 distinct", "mix reorder"),
    ("byte functions - concat", "mix byte functions", "mix concat"),
]


# --- the worker: one Spark session with one jar ---------------------------------------------------


def telemetry_path(data_dir: Path, rows: int) -> Path:
    return data_dir / f"telemetry-{rows}.parquet"


def write_telemetry(spark, path: Path, rows: int) -> None:
    """telemetry.<region>.dev<device>.<sensor>: 4 tokens, 28-40 bytes, deterministic from the row id."""
    sys.path.insert(0, str(BENCH))
    from bench import REGIONS, SENSORS, pick

    (
        spark.range(0, rows, numPartitions=4)
        .selectExpr(
            f"concat('telemetry.', {pick(REGIONS, 'xxhash64(id, 2)')}, '.dev', pmod(xxhash64(id, 3), 100000), "
            f"'.', {pick(SENSORS, 'xxhash64(id, 5)')}) AS subject"
        )
        .write.mode("overwrite")
        .parquet(str(path))
    )


class JvmCpu:
    """The CPU time of a JVM's threads in ns, from /proc (Linux): on cores shared with other work, a
    query's wall time swings with their load, the CPU it takes much less. A thread that ends between
    two readings takes its time with it; Spark's task threads outlive a query."""

    def __init__(self, pid: int):
        self.tasks = Path(f"/proc/{pid}/task")
        self.last: dict[str, int] = {}

    def used(self) -> int:
        """The ns the JVM's threads ran since the previous call (their whole time at the first)."""
        now = {}
        for task in self.tasks.iterdir():
            try:  # schedstat: ns on the CPU, ns waiting for it, time slices
                now[task.name] = int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                pass  # ended since the listing
        used = sum(ns - self.last.get(tid, 0) for tid, ns in now.items())
        self.last = now
        return used


def worker(args) -> None:
    # Replies go over a private copy of stdout; the JVM and Spark write to stdout too, so fd 1 becomes stderr.
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    from pyspark.sql import functions as F

    sys.path.insert(0, str(BENCH))
    import bench  # the data generator and session of the end-to-end benchmark

    spark = bench.bench_session(f"subjxform-guard-{args.name}", args.jar, args.master, args.driver_memory)
    data_dir = Path(args.data_dir)
    bench.data_path = lambda rows: data_dir / f"subjects-{rows}.parquet"
    tele = telemetry_path(data_dir, args.rows)
    if not (tele / "_SUCCESS").exists():
        write_telemetry(spark, tele, args.rows)
    frames = {
        "mix": bench.load_data(spark, args.rows),  # generated once, cached in memory
        "telemetry": spark.read.parquet(str(tele)).cache(),
    }
    frames["telemetry"].count()
    columns = {name: F.expr(sql).alias("r") for name, (_, sql) in CASES.items()}
    jvm_cpu = JvmCpu(spark._jvm.java.lang.ProcessHandle.current().pid())
    replies.write(json.dumps({"ready": spark.version}) + "\n")

    for line in sys.stdin:
        request = json.loads(line)
        if request.get("stop"):
            break
        times, cpu, totals = {}, {}, {}
        for name in CASES:
            df = frames[CASES[name][0]]
            jvm_cpu.used()
            start = time.perf_counter()
            totals[name] = df.select(columns[name]).agg(F.sum(F.length("r")).alias("n")).collect()[0].n
            times[name] = time.perf_counter() - start
            cpu[name] = jvm_cpu.used() / 1e9
        replies.write(json.dumps({"wall": times, "cpu": cpu, "totals": totals}) + "\n")
    spark.stop()


# --- the driver: builds the previous jar, runs both workers, prints the table ----------------------


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


def default_ref() -> str:
    """The commit this branch forked from main; on main itself, the commit before HEAD."""
    base = git("merge-base", "HEAD", "main")
    return base if base != git("rev-parse", "HEAD") else git("rev-parse", "HEAD~1")


def pyspark_line() -> tuple[str, str]:
    sys.path.insert(0, str(ROOT / "python" / "src"))
    from subjxform.session import spark_line

    return spark_line()


def build_previous_jar(ref: str) -> Path:
    """The jar of `ref`, built by that commit's own build (once) in target/guard/<commit>/."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    tree = GUARD_DIR / commit[:12]
    jars = tree / "python" / "src" / "subjxform" / "jars"
    spark, scala = pyspark_line()
    # A multi-line build names its jar by line; the single-line builds before it wrote subjxform.jar.
    candidates = [jars / f"subjxform-spark-{spark}_{scala}.jar", jars / "subjxform.jar"]
    found = next((j for j in candidates if j.is_file()), None)
    if found:
        return found
    if not (tree / "build.sbt").exists():
        shutil.rmtree(tree, ignore_errors=True)
        tree.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    launchers = ROOT / ".tools"
    if launchers.is_dir():  # the sbt launcher this checkout already fetched
        (tree / ".tools").mkdir(exist_ok=True)
        for launcher in launchers.glob("sbt-launch-*.jar"):
            shutil.copy2(launcher, tree / ".tools" / launcher.name)
    line = (
        [f"-Dspark.version={spark}", f"-Dscala.binary={scala}"]
        if (tree / "project" / "SparkLines.scala").exists()
        else []
    )
    print(f"guard: building the jar of {ref} ({commit[:12]}) in {tree} ...", flush=True)
    log = GUARD_DIR / f"{commit[:12]}-build.log"
    with open(log, "w") as out:
        rc = subprocess.run(
            [str(tree / "scripts" / "sbt"), *line, "jar"],
            cwd=tree,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "CI": "true"},
        ).returncode
    found = next((j for j in candidates if j.is_file()), None)
    if rc != 0 or found is None:
        raise SystemExit(f"guard: the build of {ref} failed (rc {rc}); see {log}")
    return found


class Worker:
    def __init__(self, name: str, jar: Path, args):
        self.name, self.jar = name, jar
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            "--name",
            name,
            "--jar",
            str(jar),
            "--rows",
            str(args.rows),
            "--master",
            args.master,
            "--driver-memory",
            args.driver_memory,
            "--data-dir",
            str(args.data_dir),
        ]
        self.stderr = open(GUARD_DIR / f"worker-{name}.log", "w")
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            env={**os.environ, "PYTHONPATH": ""},
        )

    def reply(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"guard: the {self.name} worker stopped; see {self.stderr.name}")
        return json.loads(line)

    def round(self) -> dict:
        self.proc.stdin.write(json.dumps({"round": True}) + "\n")
        self.proc.stdin.flush()
        return self.reply()

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"stop": True}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        self.stderr.close()


def spread(values: list[float], digits: int = 2) -> str:
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def tables(metric: str, what: str, args, runs: dict[str, list[dict]]) -> list[str]:
    names = list(runs)
    n = args.rows
    best = {w: {c: min(r[metric][c] for r in runs[w]) * 1e9 / n for c in CASES} for w in names}
    lines = ["", f"## {what}", "", "ns/row, best of the rounds (the whole query: scan + expression + sum(length))", ""]
    lines += ["| case | " + " | ".join(names) + f" | {names[1]} / {names[0]} |", "|---|" + "---:|" * (len(names) + 1)]
    for c in CASES:
        lines.append(
            f"| {c} | "
            + " | ".join(f"{best[w][c]:.1f}" for w in names)
            + f" | {best[names[1]][c] / best[names[0]][c]:.2f} |"
        )
    lines += ["", "ratios: median of the rounds [min-max]; both times of a ratio from the same session and round", ""]
    lines += ["| ratio | target | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(names)]
    for label, num, den, target in RATIOS:
        cells = [spread([r[metric][num] / r[metric][den] for r in runs[w]]) for w in names]
        lines.append(f"| {label} | <= {target:.2f} | " + " | ".join(cells) + " |")
    lines += ["", "over the floor, ns/row: median of the rounds [min-max]", ""]
    lines += ["| difference | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for label, case, floor in NET:
        cells = [spread([(r[metric][case] - r[metric][floor]) * 1e9 / n for r in runs[w]], 1) for w in names]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def report(args, labels: dict[str, str], runs: dict[str, list[dict]], loads: tuple, seconds: float) -> str:
    lines = [
        f"floor guard: {args.rows:,} rows, {args.rounds} timed rounds per jar (after {args.warmup} untimed), "
        f"{args.master}; {os.cpu_count()} cores, load average {loads[0]:.2f} before, {loads[1]:.2f} after; "
        f"{seconds:.0f} s",
    ]
    lines += [f"  {w}: {labels[w]}" for w in runs]
    lines += tables("cpu", "CPU time of the Spark JVM (all its threads), per row", args, runs)
    lines += tables("wall", "Wall time, per row (swings with other work on the machine)", args, runs)
    return "\n".join(lines)


def check_totals(runs: dict[str, list[dict]]) -> None:
    """Every session computes the same lengths, and the column form the constant form's (the same reorder)."""
    first = next(iter(runs.values()))[0]["totals"]
    for w, rs in runs.items():
        for r in rs:
            if r["totals"] != first:
                raise SystemExit(f"guard: {w} computed other results: {r['totals']} != {first}")
    if first["mix columns, 4 distinct"] != first["mix reorder"]:
        raise SystemExit("guard: the column form disagrees with the constant form")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds per jar")
    ap.add_argument("--warmup", type=int, default=2, help="untimed rounds per jar first (JIT)")
    ap.add_argument("--ref", help="git ref of the previous jar (default: where this branch forked from main)")
    ap.add_argument("--previous-jar", help="a previous jar to use as it is, instead of building --ref")
    ap.add_argument("--current-jar", help="default: the package's jar for the installed pyspark (scripts/sbt jar)")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="3g")
    ap.add_argument("--data-dir", default=str(ROOT / "target" / "bench-data"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--name", help=argparse.SUPPRESS)
    ap.add_argument("--jar", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    started = time.perf_counter()
    GUARD_DIR.mkdir(parents=True, exist_ok=True)
    if args.current_jar:
        current = Path(args.current_jar)
    else:
        sys.path.insert(0, str(ROOT / "python" / "src"))
        from subjxform.session import jar_path

        current = Path(jar_path())
    head = git("rev-parse", "--short", "HEAD")
    dirty = " with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    if args.previous_jar:
        previous, previous_label = Path(args.previous_jar), f"{args.previous_jar} (given)"
    else:
        ref = args.ref or default_ref()
        previous = build_previous_jar(ref)
        previous_label = f"{ref} ({git('rev-parse', '--short', ref + '^{commit}')}), {previous}"
    labels = {"previous": previous_label, "current": f"{head}{dirty}, {current}"}

    loads = [os.getloadavg()[0]]
    workers = {}
    try:
        # One at a time: the first writes the data files the second reads.
        for name, jar in (("previous", previous), ("current", current)):
            workers[name] = Worker(name, jar, args)
            workers[name].reply()
        runs = {name: [] for name in workers}
        order = list(workers)
        for r in range(args.warmup + args.rounds):
            for name in order if r % 2 == 0 else reversed(order):  # previous, current, current, previous, ...
                result = workers[name].round()
                if r >= args.warmup:
                    runs[name].append(result)
            print(
                f"round {r + 1} of {args.warmup + args.rounds} done" + (" (warm-up)" if r < args.warmup else ""),
                flush=True,
            )
    finally:
        for w in workers.values():
            w.stop()
    loads.append(os.getloadavg()[0])
    check_totals(runs)
    print()
    print(report(args, labels, runs, tuple(loads), time.perf_counter() - started))


if __name__ == "__main__":
    main()
