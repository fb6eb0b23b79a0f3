"""`subjxform validate --server-version L` reports every field nats-server L does not know in the blocks it
reads (the top level, accounts, exports, imports), as `nats-server -t` of line L reports it: the same
fields on the same lines, exit code 1. The lists are each line's own (jvm/.../ServerFields.scala, from its
server/opts.go by tests/server_fields.py); the binaries are installed by scripts/nats-servers.sh."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
TOOLS = Path(__file__).resolve().parent.parent / ".tools" / "nats-server"

# A typo in every block validate reads, a variable nothing uses (an unknown field too) and one that is used,
# and fields that later lines added (trace_headers and the traces 2.11, server_metadata 2.12, feature_flags 2.14).
TYPOS = """\
prot: 4222
UNUSED: 1
SUBJECT: "x.>"
trace_headers: false
server_metadata: {}
feature_flags: {}
accounts {
  A {
    users: [{user: a, password: a}]
    mapings { "x.*": "y.$1" }
    trace_dest: "trace.a"
    exports: [
      {stream: $SUBJECT, acounts: [B]}
      {service: "svc.>", name: "svc", description: "a service", allow_trace: true}
    ]
  }
  B {
    users: [{user: b, password: b}]
    Mappings { "q": "r" }
    imports: [
      {stream: {account: A, subject: "x.>", subjct: "x.y"}, allow_trace: true}
      {stream: {account: A, subject: "x.>"}, prefx: "a"}
      {service: {account: A, subject: "svc.>"}, too: "local.>"}
    ]
  }
}
"""

# -t's `FILE:LINE:COL: unknown field "F"` and validate's `FILE:LINE:COL: error: [where: ]unknown field "F"`
UNKNOWN = re.compile(r':(\d+):(\d+): (?:error: [\w.\[\]]*:? ?)?unknown field "([^"]+)"')


def unknown_fields(output: str) -> list[tuple[int, int, str]]:
    """Each unknown field reported: its line, its column and its name."""
    return sorted((int(line), int(column), field) for line, column, field in UNKNOWN.findall(output))


@pytest.mark.parametrize("line", LINES)
def test_validate_reports_the_unknown_fields_that_lines_nats_server_reports(tmp_path, line):
    binary = TOOLS / line / "bin" / "nats-server"
    if not binary.exists():
        pytest.skip(f"no nats-server {line}: run scripts/nats-servers.sh")
    path = tmp_path / "typos.conf"
    path.write_text(TYPOS)
    theirs = subprocess.run([str(binary), "-t", "-c", str(path)], capture_output=True, text=True, timeout=30)
    ours = subprocess.run(
        [sys.executable, "-m", "subjxform", "validate", "--server-version", line, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    expected = unknown_fields(theirs.stderr + theirs.stdout)
    assert len(expected) >= 7, theirs.stderr  # every block's typo, and the unused variable
    assert unknown_fields(ours.stdout) == expected, (ours.stdout, theirs.stderr)
    assert theirs.returncode == 1 and ours.returncode == 1


def test_a_typo_in_mappings_is_no_longer_ok(tmp_path):
    """`mapings` in an account took the mappings away and validate said OK: nats-server -t refuses it."""
    path = tmp_path / "typo.conf"
    path.write_text('accounts { APP { mapings { "orders.*": "orders.v2.$1" } } }\n')
    ours = subprocess.run(
        [sys.executable, "-m", "subjxform", "validate", "--server-version", "2.12.3", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ours.returncode == 1
    # -t 2.12.3: typo.conf:1:17: unknown field "mapings"
    assert f'{path}:1:17: error: accounts.APP: unknown field "mapings"' in ours.stdout
