"""The account functions of nats-server 2.14.10 and 2.15.3 (issue #8631) against a live 2.15.3, built from its Go
module (`GOBIN=.tools/nats-server/2.15.3/bin go install github.com/nats-io/nats-server/v2@v2.15.3`): what a server
delivered in accounts A and B, what `nats-server -t` refused and what JetStream refused, beside what the grammar (the
portable path's reader, the jar's twin) says. Skipped where that binary is not built (no wheel of 2.15.3 exists).
AccountFunctionsSuite (the core's Scala tests) checks the jar's engine with the same facts."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time

import pytest

from nats_client import NatsClient, jetstream_server, settled
from processes import free_port, listening, stop, wait_until
from subjxform.grammar import mapping_table, subject_transform
from subjxform.grammar import server_version as versions
from subjxform.grammar.account_functions import account_hash

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".tools", "nats-server", "2.15.3", "bin", "nats-server")
pytestmark = pytest.mark.skipif(not os.access(BINARY, os.X_OK), reason=f"{BINARY} is not built")

MAPPINGS = {"orders.*": "orders.{{account-hash()}}.{{wildcard(1)}}", "in.{{account-hash()}}.*": "got.{{wildcard(1)}}"}


def _conf_block(mappings: dict) -> str:
    return ", ".join(f'"{k}": "{v}"' for k, v in mappings.items())


def test_account_mappings_deliver_what_the_grammar_maps():
    port = free_port()
    store = tempfile.mkdtemp(prefix="subjxform-acchash-")
    conf = f"""port: {port}
accounts {{
  A: {{ users: [{{user: a, password: a}}], mappings: {{ {_conf_block(MAPPINGS)} }},
       exports: [{{stream: "ev.{{{{account-hash()}}}}.>"}}] }}
  B: {{ users: [{{user: b, password: b}}], mappings: {{ {_conf_block(MAPPINGS)} }},
       imports: [{{stream: {{account: A, subject: "ev.{{{{account-hash-import()}}}}.>"}},
                  to: "imp.{{{{account-hash-import()}}}}.{{{{account-hash()}}}}.>"}}] }}
}}
"""
    path = os.path.join(store, "server.conf")
    with open(path, "w", encoding="utf-8") as f:
        f.write(conf)
    proc = subprocess.Popen([BINARY, "-c", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until("nats-server 2.15.3", lambda: listening(port), 10, [proc])
        a, b = NatsClient(port, {"user": "a", "pass": "a"}), NatsClient(port, {"user": "b", "pass": "b"})
        a.subscribe(">")
        b.subscribe(">")
        time.sleep(0.3)  # the subscriptions reach the server before the first message
        published = {"A": ["orders.x", f"in.{account_hash('A')}.q"], "B": ["orders.y"]}
        for subject in published["A"]:
            a.publish(subject)
        for subject in published["B"]:
            b.publish(subject)
        a.publish(f"ev.{account_hash('A')}.z")
        delivered, imported = settled(
            lambda: (
                {"A": sorted(a.received("orders") + a.received("got")), "B": sorted(b.received("orders"))},
                b.received("imp"),
            )
        )
    finally:
        stop(proc, grace=5)
    assert delivered == {"A": ["got.q", "orders.NUmM6cRx.x"], "B": ["orders.b2oh2L6w.y"]}
    assert imported == ["imp.NUmM6cRx.b2oh2L6w.z"]
    v = versions.parse("2.15.3")
    for account, subjects in published.items():
        table = mapping_table.compile_mappings(MAPPINGS, v, account=account)
        mapped = sorted(mapping_table.map_reference(table, s) for s in subjects)
        assert mapped == delivered[account], account


def _t_error(conf: str) -> str | None:
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write(conf)
    out = subprocess.run([BINARY, "-t", "-c", f.name], capture_output=True, text=True, timeout=60)
    os.unlink(f.name)
    return out.stderr.strip().split(" : ", 1)[-1] if out.returncode else None


@pytest.mark.parametrize(
    "dest",
    [
        "orders.{{account-hash(x)}}.{{wildcard(1)}}",
        "orders.{{account-hash-import()}}.{{wildcard(1)}}",
        "orders.{{account-hash-leaf-remote()}}.{{wildcard(1)}}",
        "orders.{{ Account-Hash( ) }}.{{wildcard(1)}}",
        "orders.x{{account-hash()}}.{{wildcard(1)}}",
    ],
)
def test_a_mapping_is_refused_or_taken_as_the_binary_does(dest):
    server = _t_error(f'accounts {{ A: {{ mappings: {{ "orders.*": "{dest}" }} }} }}')
    ours = mapping_table.validate_mappings({"orders.*": dest}, "2.15.3", account="A")
    errors = [p.message.split(" : ", 1)[-1] for p in ours if p.is_error]
    assert errors == ([server] if server else []), (dest, server, errors)


def test_a_stream_refuses_them_as_the_binary_does():
    with jetstream_server(BINARY) as port:
        client = NatsClient(port)
        try:
            r = client.request(
                "$JS.API.STREAM.CREATE.S1",
                {
                    "name": "S1",
                    "subjects": ["s1.*"],
                    "subject_transform": {"src": "s1.*", "dest": "t.{{account-hash()}}.$1"},
                },
            )
        finally:
            client.close()
    assert r["error"]["description"].endswith("function is not available in this context in {{account-hash()}}")
    with pytest.raises(subject_transform.InvalidTransform) as e:
        subject_transform.compile_transform("s1.*", "t.{{account-hash()}}.$1", server_version="2.15.3")
    assert r["error"]["description"].endswith(e.value.reason)
