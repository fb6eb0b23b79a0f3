"""How long the command line takes to answer: `subjxform mapping`, `validate` of a small config and `group`, each
run ROUNDS times in turn with the class-data-sharing archive (subjxform.cli.shared_classes) and without it
(SUBJXFORM_CLASS_SHARING=0), beside `python -c pass`; the median wall time of each, and the ratio of the two
JVM forms, from one run on the same machine. The console script of the interpreter running this is used
directly (a pyenv shim or a wrapper adds its own start).

    python bench/cli_start.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SMALL_CONFIG = 'mappings { "orders.*": "orders.{{partition(4,1)}}.$1" }\n'
GROUP_CONFIG = '{"max_members": 4, "members": ["b", "a"], "partitioning_filters": [{"filter": "orders.*.*", "partitioning_wildcards": [2]}]}'


def seconds(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    script = str(Path(sys.executable).parent / "subjxform")
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "small.conf"
        config.write_text(SMALL_CONFIG)
        commands = {
            "mapping": [script, "mapping", "orders.*", "x.{{wildcard(1)}}", "orders.eu"],
            "validate": [script, "validate", str(config)],
            "group": [script, "group", GROUP_CONFIG, "orders.eu.42"],
        }
        shared = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        plain = {**shared, "SUBJXFORM_CLASS_SHARING": "0"}
        for command in commands.values():  # the archives written and moved into place first
            for _ in range(2):
                seconds(command, shared)
        times: dict[str, list[float]] = {"python -c pass": []}
        for name in commands:
            times[f"{name}, archive"] = []
            times[f"{name}, no archive"] = []
        for _ in range(rounds):  # in turn, so that the machine's load falls on every form alike
            times["python -c pass"].append(seconds([sys.executable, "-c", "pass"], plain))
            for name, command in commands.items():
                times[f"{name}, archive"].append(seconds(command, shared))
                times[f"{name}, no archive"].append(seconds(command, plain))
    median = {name: statistics.median(t) for name, t in times.items()}
    print(f"cli_start: median of {rounds} runs each, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    for name, m in median.items():
        print(f"  {name:24} {m:6.3f} s")
    for name in commands:
        if name != "group":  # (group answers in Python: no JVM)
            print(f"  {name}: archive / no archive = {median[f'{name}, archive'] / median[f'{name}, no archive']:.2f}")


if __name__ == "__main__":
    main()
