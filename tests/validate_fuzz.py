"""A differential fuzz of whole server configs (issue 49): configs built from the field table of a line's release (its
own server/opts.go, read by tests/conf_oracle `fields` and `types`), each giving one field of one block a value of
one kind (a string, an integer, a bool, a float, a duration, a list, a map), through that line's `nats-server -t`
and `subjxform validate --server-version LINE`. It prints the agreement per line and per block, and each config
where the verdicts differ with what both said; with --seed, a sample of --sample configs drawn with that seed.

A maintainers' measurement, run like the `conf` fuzz (tests/conf_differential.py), not a test: the differences it
finds are the checks `validate` does not make yet (each line printed is one to fix, or to list as deliberate).

    python3 tests/validate_fuzz.py [--lines 2.15 ...] [--seed N --sample K] [--show N]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from server_fields import ORACLE, RELEASES, release_source
from validate_verdicts import LINES, VALIDATE, binary, server_verdicts, validate_verdicts

# One value of each kind, as a config writes it.
VALUES = {"string": '"x"', "integer": "5", "bool": "true", "float": "1.5", "duration": '"1s"', "list": "[1]",
          "map": "{a: 1}"}  # fmt: skip

# A public account nkey (nats-server's auth callout examples'): an auth callout's issuer must be one.
CALLOUT_ISSUER = "ABJHLOVMPA4CI6R5KLNGOB4GSLNIY7IOUPAJC4YFNDLQVIOBYQGUWVLA"

# Each block as a config holds it, with what it needs to be read at all (a port, a name, a store); `{field}` and
# `{value}` are the field given a value. The fields the wrapper writes itself are not varied.
BLOCKS = {
    "top": ("{field}: {value}", set()),
    "cluster": ("cluster {{ port: 6222, {field}: {value} }}", {"port"}),
    "gateway": ("gateway {{ name: g, port: 7222, {field}: {value} }}", {"port", "name"}),
    "leafnodes": ("leafnodes {{ port: 7422, {field}: {value} }}", {"port"}),
    "websocket": ("websocket {{ port: 8080, no_tls: true, {field}: {value} }}", {"port", "no_tls"}),
    "mqtt": ('server_name: s\njetstream {{ store_dir: "{store}" }}\nmqtt {{ port: 1883, {field}: {value} }}', {"port"}),
    "jetstream": ('jetstream {{ store_dir: "{store}", {field}: {value} }}', {"store_dir", "store", "storedir"}),
    "authorization": ("authorization {{ {field}: {value} }}", set()),
    # the blocks inside those, each with what it needs to be read (a user's name, a callout's issuer and users)
    "account": ("accounts {{ A: {{ {field}: {value} }} }}", set()),
    "user": ("authorization {{ users: [ {{ user: u, {field}: {value} }} ] }}", {"user", "username"}),
    "permissions": ("authorization {{ permissions: {{ {field}: {value} }} }}", set()),
    "subject_permission": ("authorization {{ permissions: {{ publish: {{ {field}: {value} }} }} }}", set()),
    "allow_responses": ("authorization {{ permissions: {{ allow_responses: {{ {field}: {value} }} }} }}", set()),
    "auth_callout": (
        "authorization {{ users: [ {{ user: auth, password: p }} ], auth_callout {{ issuer: "
        + CALLOUT_ISSUER
        + ", auth_users: [ auth ], {field}: {value} }} }}",
        {"issuer", "auth_users", "users"},
    ),
    "leaf_authorization": ("leafnodes {{ port: 7422, authorization {{ {field}: {value} }} }}", set()),
    "leaf_user": (
        "leafnodes {{ port: 7422, authorization {{ users: [ {{ user: u, {field}: {value} }} ] }} }}",
        {"user", "username"},
    ),  # fmt: skip
    "simple_authorization": ("websocket {{ port: 8080, no_tls: true, authorization {{ {field}: {value} }} }}", set()),
    "jetstream_limits": ('jetstream {{ store_dir: "{store}", limits {{ {field}: {value} }} }}', set()),
    "jetstream_tpm": ('jetstream {{ store_dir: "{store}", tpm {{ {field}: {value} }} }}', set()),
    "account_jetstream": (
        'jetstream {{ store_dir: "{store}" }}\naccounts {{ A: {{ jetstream: {{ {field}: {value} }} }} }}',
        set(),
    ),  # fmt: skip
    "gateway_remote": (
        'gateway {{ name: g, port: 7222, gateways: [ {{ name: r, url: "nats://127.0.0.1:7223", {field}: {value} }} ] }}',
        {"name", "url", "urls"},
    ),
    "leafnode_remote": (
        'leafnodes {{ remotes: [ {{ url: "nats://127.0.0.1:7422", {field}: {value} }} ] }}',
        {"url", "urls"},
    ),  # fmt: skip
}
# Fields that name files or folders the server would open or make (not what this fuzz is about).
SKIPPED = {"include", "store_dir", "store", "storedir", "log_file", "logfile", "pid_file", "pidfile", "ports_file_dir"}


def fields_of(line: str, folder: str) -> dict[str, list[str]]:
    oracle = str(Path(folder) / "conf_oracle")
    if not Path(oracle).exists():
        subprocess.run(["go", "build", "-o", oracle, "."], cwd=ORACLE, check=True)
    opts = release_source(RELEASES[line], folder) / "server" / "opts.go"
    return json.loads(subprocess.run([oracle, "fields", str(opts)], capture_output=True, text=True, check=True).stdout)


def configs(line: str, folder: str, store: str) -> dict[str, str]:
    """Name -> text: one config per (block, field, kind of value)."""
    known = fields_of(line, folder)
    out = {}
    for block, (wrapper, written) in BLOCKS.items():
        for field in known.get(block, []):
            if field in written or field in SKIPPED:
                continue
            for kind, value in VALUES.items():
                out[f"{block}.{field}.{kind}.conf"] = wrapper.format(field=field, value=value, store=store) + "\n"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", nargs="*", default=LINES)
    parser.add_argument("--seed", type=int, help="draw a sample of the configs with this seed")
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--show", type=int, default=40, help="differences printed per line")
    args = parser.parse_args()
    total = same = 0
    with tempfile.TemporaryDirectory(prefix="subjxform-validate-fuzz-") as folder:
        for line in args.lines:
            if not binary(line).exists():
                print(f"{line}: no nats-server binary in .tools (scripts/nats-servers.sh), skipped")
                continue
            run = Path(folder) / line
            run.mkdir()
            texts = configs(line, folder, str(run / "js"))
            names = sorted(texts)
            if args.seed is not None:
                names = sorted(random.Random(args.seed).sample(names, min(args.sample, len(names))))
            for name in names:
                (run / name).write_text(texts[name], encoding="utf-8")
            theirs = server_verdicts(line, names, run)
            ours = validate_verdicts(line, VALIDATE, names, run)
            differ = [n for n in names if theirs[n][0] != ours[n][0]]
            total, same = total + len(names), same + len(names) - len(differ)
            by_block = Counter(n.split(".")[0] for n in differ)
            print(f"{line} ({RELEASES[line]}): {len(names) - len(differ)}/{len(names)} verdicts agree; differing by "
                  f"block: {dict(by_block.most_common())}")  # fmt: skip
            for n in differ[: args.show]:
                said = texts[n].strip().replace("\n", "; ")
                print(f"  {said}  =>  -t {'valid' if theirs[n][0] else theirs[n][1]!r} / validate {ours[n][1]!r}")
    print(f"all lines: {same}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
