"""Per-line golden files: the inputs of tests/golden/{transform,map}_cases.jsonl (made with nats-server 2.15.1)
run through the real binary of every supported server line, written to
tests/golden/servers/<line>/{transforms,mappings}.jsonl in the same shape (named apart from the shared contract files),
and beside them non-ASCII subjects through the functions that count bytes (BYTE_CASES: issue 39), cuts inside a
character included.

Regenerate (needs the binaries: scripts/nats-servers.sh installs them into .tools/nats-server/):

    bash scripts/nats-servers.sh && python3 tests/server_lines_golden.py

For each line, each case's verdict and error text are that binary's (`nats-server -t`), and its delivered
subject is what a `>` subscriber received from that binary (one mapping per account, as tests/golden was
made). `expected` is the 2.15 golden's where the line delivered exactly what 2.15 delivered (so SPEC §4's
deliberate differences carry over; random draws compare with their numbers blanked), otherwise what the
line delivered, with `differs_from_2_15: true` and `nats_received` (`nats_crashed: true` and NULL where the
binary exited on the message: 2.10/2.11 divide by zero in `{{partition(0,…)}}`). A case that only this line accepts
and whose subject is not a literal subject gets NULL (SPEC §1). Where the golden counted code points (its
`deviation` said so, before SPEC §4 took the server's bytes) and for the BYTE_CASES, `expected` is what the line
delivered; a delivered subject that is not UTF-8 (a character cut in two) is written as `expected_hex`, its bytes.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import nats_oracle  # noqa: E402
from nats_oracle import Account, MappingServer, validate_mappings  # noqa: E402

ROOT = os.path.dirname(HERE)
sys.path.insert(1, os.path.join(ROOT, "python", "src"))

from subjxform.grammar import server_version as versions  # noqa: E402
from subjxform.grammar.subjects import compile_filter, filter_matches, literal_tokens  # noqa: E402

LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
# The release measured for each line is installed in its line's folder.
LINE_FOLDERS = {v.release: v.line for v in versions.ALL}
CRASH = "crash"  # what a binary "delivered" when the message made it exit
# The golden's deviation for split/slice/left/right on non-ASCII subjects, when SPEC §4 counted code points.
CODE_POINTS = "character counts are code points; nats-server counts bytes"
BYTE_CASES_SEED = 39
BYTE_TRANSFORMS = 60
BYTE_SUBJECTS = 3


def binary(name: str) -> str:
    """The binary of a line ("2.12") or a release ("2.12.3"), where scripts/nats-servers.sh installs it: the
    line's measured release in .tools/nats-server/<line>/, any other release (`--releases`) in .../<release>/."""
    path = os.path.join(ROOT, ".tools", "nats-server", LINE_FOLDERS.get(name, name), "bin", "nats-server")
    if not os.access(path, os.X_OK):
        raise SystemExit(f"{path} is missing: run scripts/nats-servers.sh{'' if name in LINES else ' --releases'}")
    return path


def read(name: str) -> list[dict]:
    with open(os.path.join(ROOT, "tests", "golden", name), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def is_literal(subject: str) -> bool:
    return all(t and t not in ("*", ">") for t in subject.split("."))


def run_line(line: str, mappings: list[tuple[str, str]], subjects: dict[int, list[str]], json_blocks=False):
    """The binary's verdict and deliveries: {mapping index: error}, {mapping index: [delivered per subject]}.
    One account per mapping. With `json_blocks`, a mapping is a whole `mappings` block in JSON. `line` names
    a line or a release (binary())."""
    nats_oracle.NATS_SERVER = binary(line)
    accounts = [Account(f"A{i}", [m]) for i, m in enumerate(mappings)]
    with tempfile.TemporaryDirectory(prefix="subjxform-lines-") as tmp:
        if json_blocks:
            errors = {i: e for i, (acc) in enumerate(accounts) if (e := _validate_block(acc, tmp)) is not None}
        else:
            errors = {int(name[1:]): e for (name, _), e in validate_mappings(accounts, tmp).items()}
        # An empty destination crashes nats-server's account mapping (SPEC §4): not published.
        live = [acc for i, acc in enumerate(accounts) if i not in errors and mappings[i][-1:] != ("",)]
        delivered: dict[int, list] = {i: [None] * len(subjects[i]) for i in range(len(mappings))}
        todo = [(acc, None) for acc in live]  # (account, index of one subject or None for all)
        while todo:
            with _Server(live, tmp, json_blocks) as server:
                while todo:
                    acc, one = todo[0]
                    i = int(acc.name[1:])
                    subs = subjects[i] if one is None else [subjects[i][one]]
                    try:
                        got = server.deliveries(acc, subs)
                    except (nats_oracle.ProtocolError, OSError):
                        try:
                            server.proc.wait(timeout=5)
                        except Exception:
                            raise RuntimeError(
                                f"nats-server {line} closed a connection but did not exit: {acc.mappings}"
                            ) from None
                        # The binary crashed on one of these messages (2.10/2.11 divide by zero for
                        # partition(0,…)): try them one by one, a fresh server each time one crashes.
                        todo.pop(0)
                        if one is None:
                            todo[0:0] = [(acc, k) for k in range(len(subs))]
                        else:
                            delivered[i][one] = CRASH
                        break
                    todo.pop(0)
                    if one is None:
                        delivered[i] = got
                    else:
                        delivered[i][one] = got[0]
    return errors, delivered


def _render_blocks(accounts, port=None):
    lines = []
    if port is not None:
        lines += ["listen: 127.0.0.1:%d" % port, "max_control_line: 65536", "max_payload: 65536"]
    lines.append("accounts {")
    for acc in accounts:
        lines.append(f"  {acc.name} {{")
        lines.append(f"    users: [{{user: {acc.user}, password: {acc.password}}}]")
        lines.append("    mappings: " + acc.mappings[0])
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n", {}


def _validate_block(acc, tmp) -> str | None:
    import subprocess

    text, _ = _render_blocks([acc])
    path = os.path.join(tmp, "block.conf")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    proc = subprocess.run([nats_oracle.NATS_SERVER, "-c", path, "-t"], capture_output=True, text=True, timeout=60)
    if proc.returncode == 0:
        return None
    out = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]  # keep a trailing " in "
    msg = out[0].removeprefix("nats-server: ") if out else "?"
    m = nats_oracle._ERROR_LINE.match(msg)
    return m.group(3) if m else msg


class _Server(MappingServer):
    def __init__(self, accounts, workdir, json_blocks):
        super().__init__(accounts, workdir)
        self.json_blocks = json_blocks

    def __enter__(self):
        if self.json_blocks:
            saved = nats_oracle.render_config
            nats_oracle.render_config = _render_blocks
            try:
                return super().__enter__()
            finally:
                nats_oracle.render_config = saved
        return super().__enter__()


def numbers_out(subject: str) -> str:
    """The subject with each all-digit token as `#`: two random draws compare equal."""
    return ".".join("#" if t.isdigit() else t for t in subject.split("."))


def same_delivery(got, ref, random_case) -> bool:
    """The line delivered what 2.15 did (random draws with their numbers blanked); nothing delivered counts as the
    same (a line that drops what 2.15 delivers is a verdict difference, pinned by the verdict)."""
    return (
        got == ref
        or got is None
        or (
            bool(random_case)
            and got != CRASH
            and ref != CRASH
            and [numbers_out(x) for x in got] == [numbers_out(x) for x in ref]
        )
    )


def pin(case: dict, delivered: str | None) -> None:
    """The delivered subject as the case's `expected`, or as `expected_hex` (its bytes) when it is not UTF-8 (read
    with surrogate escapes, as nats_oracle reads deliveries)."""
    if delivered is None:
        case["expected"] = None
        return
    raw = delivered.encode("utf-8", "surrogateescape")
    try:
        case["expected"] = raw.decode("utf-8")
    except UnicodeDecodeError:
        case["expected_hex"] = raw.hex()


def byte_cases() -> list[dict]:
    """Non-ASCII subjects through split, splitfromleft/right, slicefromleft/right, left and right (every line's
    binary answers for itself: 2.10-2.14 refuse left/right): the issue's own examples, then seeded transforms of
    tests/transform_gen.py with UTF-8 subjects (a JSON string holds them) whose cuts fall inside characters."""
    import random

    import transform_gen as gen

    fixed = [
        ("sensor.*.*", "telemetry.{{wildcard(2)}}.{{splitfromleft(1,3)}}", "sensor.münchen01.dev-1"),
        ("m.*.*", "m.$1.{{slicefromleft(2,2)}}", "m.10.日"),
        ("m.*", "{{left(1,1)}}.{{slicefromleft(1,2)}}", "m.日本"),
        ("m.*", "{{right(1,1)}}.{{splitfromleft(1,4)}}", "m.日本"),
        ("m.*", "{{slicefromright(1,2)}}.{{splitfromright(1,1)}}", "m.ñandú"),
        ("m.*", "{{split(1,é)}}.{{split(1,)}}", "m.aébé日🙂"),
        ("m.*", "{{split(1,)}}", "m.𝄞é€a"),
    ]

    r = random.Random(BYTE_CASES_SEED)
    cases = [{"src": a, "dest": b, "subject": s} for a, b, s in fixed]
    for i in range(BYTE_TRANSFORMS):
        src = gen.byte_source(r, i).replace(f"k{i}.", f"b{i}.", 1)
        dest = gen.byte_destination(r, src, gen.BYTE_FUNCTIONS)
        source = compile_filter(src, source_quirk=True)
        subjects: list[str] = []
        while len(subjects) < BYTE_SUBJECTS:
            s = gen.byte_subjects(r, src, 1)[0]
            toks = literal_tokens(s)
            # a literal subject the source matches (a subscriber receives any other one unchanged), UTF-8 (JSON)
            if toks is not None and filter_matches(source, toks) and s.decode("utf-8", "replace").encode() == s:
                subjects.append(s.decode("utf-8"))
        cases += [{"src": src, "dest": dest, "subject": s} for s in subjects]
    return [dict(c, id=f"bytes-{n}") for n, c in enumerate(cases)]


def per_line(
    golden: list[dict], key, json_blocks: bool, names: list[str] = LINES, newest: str = "2.15"
) -> dict[str, list[dict]]:
    """Every line's cases for one golden file: for each of `names` (lines or releases, binary()), its answers
    in the shape of the golden file, told apart from those of `newest` (2.15's, the contract's)."""
    mappings: list = []
    index: dict = {}
    subjects: dict[int, list[str]] = {}
    for c in golden:
        k = key(c)
        if k not in index:
            index[k] = len(mappings)
            mappings.append(k)
            subjects[index[k]] = []
        if c.get("subject") is not None:
            subjects[index[k]].append(c["subject"])
    runs = {name: run_line(name, mappings, subjects, json_blocks) for name in names}
    ref_errors, ref_delivered = runs[newest]
    out: dict[str, list[dict]] = {}
    for line in names:
        errors, delivered = runs[line]
        cases = []
        seen: dict[int, int] = {}
        for c in golden:
            i = index[key(c)]
            c2 = {k: v for k, v in c.items() if k not in ("deviation", "nats_received", "nats_received_hex")}
            if c.get("subject") is None:
                c2.update(accepted=i not in errors, error=errors.get(i))
                cases.append(c2)
                continue
            si = seen.get(i, 0)
            seen[i] = si + 1
            if i in errors:
                c2 = {k: v for k, v in c2.items() if k not in ("expected", "expected_pattern")}
                c2.update(accepted=False, error=errors[i])
                cases.append(c2)
                continue
            got = delivered[i][si]
            c2.update(accepted=True, error=None)
            same_as_newest = i not in ref_errors and same_delivery(got, ref_delivered[i][si], c.get("random"))
            pinned_by_golden = (
                c.get("accepted") and ("expected" in c or c.get("random")) and c.get("deviation") != CODE_POINTS
            )
            if same_as_newest and pinned_by_golden:
                for k in ("deviation", "nats_received", "nats_received_hex"):
                    if k in c:
                        c2[k] = c[k]
                cases.append(c2)
                continue
            # The line's own delivery is what the case pins: it delivers something 2.15 does not (or 2.15 refused
            # the mapping), or the golden has no (or a code-point) result for it.
            c2.pop("expected_pattern", None)
            c2.pop("expected", None)
            if not same_as_newest:
                c2["differs_from_2_15"] = True
            if got == CRASH:  # the binary exited: nothing is delivered, to anyone
                c2.update(expected=None, nats_received=None, nats_crashed=True)
                cases.append(c2)
                continue
            if not same_as_newest:
                received = got[0] if len(got) == 1 else got
                try:
                    json.dumps(received, ensure_ascii=False).encode("utf-8")
                    c2["nats_received"] = received
                except UnicodeEncodeError:  # not UTF-8: the bytes, as tests/golden writes them
                    c2["nats_received"] = None
                    c2["nats_received_hex"] = received.encode("utf-8", "surrogateescape").hex()
            subject = c["subject"]
            if not is_literal(subject):
                c2["expected"] = None  # SPEC §1
            elif len(got) > 1 or c.get("random"):
                pass  # several deliveries, or a draw: no single subject to pin
            else:
                pin(c2, got[0] if got else None)
            cases.append(c2)
        out[line] = cases
    return out


def quotable(s: str) -> bool:
    """Whether the oracle can write `s` in a config (the few golden cases with a `"`, `\\` or line break
    in a mapping are left out of the per-line files)."""
    try:
        nats_oracle.conf_string(s)
        return True
    except ValueError:
        return False


def transform_inputs() -> list[dict]:
    """The transform cases every line's (and every release's) binary is asked: the contract's, then BYTE_CASES."""
    return [c for c in read("transform_cases.jsonl") + byte_cases() if quotable(c["src"]) and quotable(c["dest"])]


def main() -> None:
    transforms = per_line(transform_inputs(), lambda c: (c["src"], c["dest"]), False)
    maps = per_line(read("map_cases.jsonl"), lambda c: c["mappings"], True)
    for line in LINES:
        d = os.path.join(ROOT, "tests", "golden", "servers", line)
        os.makedirs(d, exist_ok=True)
        for name, cases in (("transforms.jsonl", transforms[line]), ("mappings.jsonl", maps[line])):
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                for c in cases:
                    f.write(json.dumps(c, ensure_ascii=False) + "\n")
        n = sum(1 for c in transforms[line] if c.get("differs_from_2_15"))
        print(
            f"{line}: {len(transforms[line])} transform cases ({n} deliver otherwise than 2.15), "
            f"{sum(1 for c in transforms[line] if not c['accepted'])} rejected; {len(maps[line])} map cases"
        )


if __name__ == "__main__":
    main()
