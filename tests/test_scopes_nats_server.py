"""The scope chain (subjxform.scopes) against live servers on 127.0.0.1: a hub (cluster us-west-1, with
the docs' cluster-scoped mapping), a JetStream leaf node of it with its own mappings and a stream (ingress
transform and republish), and a server of another cluster joined to the hub by a gateway.

What the servers do, and the chain reproduces (each assertion compares the chain's subjects with what
subscribers on each server and the stream's store really got):
  - the hub applies its cluster-scoped destination (its cluster is us-west-1) to what its clients publish;
  - the leaf re-maps what arrives from the hub, with its own mappings (and has interest in its mappings'
    sources: the stream gets hub traffic although nothing on the leaf subscribes to the hub's subjects);
  - the stream stores under its ingress transform; its republish is not re-mapped by the leaf's account
    mappings (a `repub.*` mapping on the leaf is ignored), but the hub re-maps it on arrival (over a leaf
    connection);
  - the hub re-maps what a leaf client publishes (with the hub's cluster) and does not send it back;
  - the gateway does not re-map: the other cluster sees the hub's subject, its own mapping unused.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from nats_client import NatsClient, await_route, settled
from processes import free_ports, listening, stop, wait_until
from subjxform import AccountsConfigError
from subjxform.scopes import chain, forward, publish, server_from_config, stream

pytestmark = pytest.mark.skipif(shutil.which("nats-server") is None, reason="nats-server is not installed")

HUB = """
server_name: hub
listen: 127.0.0.1:{hub}
cluster {{ name: us-west-1, listen: 127.0.0.1:{hub_cluster} }}
gateway {{ name: us-west-1, listen: 127.0.0.1:{hub_gw}, gateways: [{{ name: east, url: "nats://127.0.0.1:{east_gw}" }}] }}
leafnodes {{ listen: 127.0.0.1:{hub_leaf}, authorization {{ user: leaf, password: leaf, account: APP }} }}
# A server with leaf nodes and a gateway needs a system account, so the application has an account of its own.
system_account: SYS
no_auth_user: app
accounts {{
  SYS {{ users: [{{ user: sys, password: sys }}] }}
  APP {{
    users: [{{ user: app, password: app }}]
    mappings = {{
      # You can scope mappings to a particular cluster  (quoted from the docs' "Configuring Subject Mapping")
      foo.cluster.scoped : [
        {{ destination: bar.cluster.scoped, weight:100%, cluster: us-west-1 }}
      ]
      orders.*: [
        {{ destination: "orders.hub.$1", weight: 100%, cluster: us-west-1 }}
        {{ destination: "orders.any.$1", weight: 100% }}
      ]
      # The leaf's stream republishes repub.N; here it becomes orders.hub.N again: the message is back on
      # the hub under a subject it already had (a loop the chain flags).
      repub.*: "orders.hub.$1"
    }}
  }}
}}
"""

EAST = """
server_name: east
listen: 127.0.0.1:{east}
gateway {{ name: east, listen: 127.0.0.1:{east_gw}, gateways: [{{ name: us-west-1, url: "nats://127.0.0.1:{hub_gw}" }}] }}
system_account: SYS
no_auth_user: app
accounts {{
  SYS {{ users: [{{ user: sys, password: sys }}] }}
  APP {{
    users: [{{ user: app, password: app }}]
    mappings = {{
      orders.hub.*: "east.orders.$1"
      bar.cluster.scoped: east.bar
    }}
  }}
}}
"""

LEAF = """
server_name: leaf
listen: 127.0.0.1:{leaf}
jetstream {{ store_dir: "{store}" }}
leafnodes {{ remotes: [ {{ url: "nats://leaf:leaf@127.0.0.1:{hub_leaf}" }} ] }}
mappings = {{
  orders.hub.*: "leaf.orders.$1"
  bar.cluster.scoped: leaf.bar
  back.*: "leaf.orders.$1"
  repub.*: "final.$1"
}}
"""

ORDERS = {
    "name": "ORDERS",
    "subjects": ["leaf.orders.*", "leaf.bar"],
    "storage": "memory",
    "subject_transform": {"src": "leaf.orders.*", "dest": "stored.orders.$1"},
    "republish": {"src": "stored.orders.*", "dest": "repub.$1"},
}

FROM_HUB = ["orders.7", "foo.cluster.scoped", "back.9", "misc.1"]
FROM_LEAF = ["orders.8", "leaf.orders.5"]


@pytest.fixture(scope="module")
def topology():
    work = Path(tempfile.mkdtemp(prefix="subjxform-scopes-"))
    names = ["hub", "hub_cluster", "hub_gw", "hub_leaf", "east", "east_gw", "leaf"]
    ports = dict(zip(names, free_ports(len(names))))
    procs = []
    try:
        for name, text in (("hub", HUB), ("east", EAST), ("leaf", LEAF)):
            (work / f"{name}.conf").write_text(text.format(**ports, store=work / "js"))
        for name in ("hub", "east", "leaf"):
            log = open(work / f"{name}.log", "w")
            procs.append(
                subprocess.Popen(
                    ["nats-server", "-c", str(work / f"{name}.conf")], stdout=log, stderr=subprocess.STDOUT
                )
            )
            wait_until(
                name, lambda p=ports[name]: listening(p), 15, procs, lambda n=name: (work / f"{n}.log").read_text()
            )
        leaf, hub, east = NatsClient(ports["leaf"]), NatsClient(ports["hub"]), NatsClient(ports["east"])
        # The leaf and the gateway connect, and interest spreads.
        wait_until(
            "leaf node and gateway",
            lambda: (
                "Leafnode connection created" in (work / "leaf.log").read_text()
                and 'Outbound gateway connection to "east"' in (work / "hub.log").read_text()
            ),
            20,
            procs,
        )
        created = leaf.request("$JS.API.STREAM.CREATE.ORDERS", ORDERS)
        assert "error" not in created, created
        # (the probe subscription last: once a probe reaches the leaf, the subscriptions before it have spread)
        for s in ("leaf.>", "repub.>", "final.>", "$probe.>"):
            leaf.subscribe(s)
        hub.subscribe(">")
        east.subscribe(">")
        # Interest spreads over the leaf connection and the gateway: a probe each way arrives.
        await_route(hub, leaf, "$probe.to_leaf")
        await_route(leaf, hub, "$probe.to_hub")
        await_route(hub, east, "$probe.to_east")
        for s in FROM_HUB:
            hub.publish(s, b"h")
        for s in FROM_LEAF:
            leaf.publish(s, b"l")
        # What was published has arrived (a probe behind it on each route); then the stream, which stores and
        # republishes on its own schedule, is done when nothing changes any more.
        await_route(hub, leaf, "$probe.to_leaf_after")
        await_route(leaf, hub, "$probe.to_hub_after")
        await_route(hub, east, "$probe.to_east_after")

        def seen(client):
            with client.lock:
                return Counter(s for s, _ in client.msgs if not s.startswith(("_INBOX", "$")))

        def observe():
            info = leaf.request("$JS.API.STREAM.INFO.ORDERS", {"subjects_filter": ">"})
            return {
                "leaf": seen(leaf),
                "hub": seen(hub),
                "east": seen(east),
                "stored": Counter(info["state"].get("subjects", {})),
            }

        observed = settled(observe)
        for c in (leaf, hub, east):
            c.close()
        yield work, observed
    finally:
        for p in reversed(procs):
            stop(p, grace=10)
        shutil.rmtree(work, ignore_errors=True)


def _chain(spark, subjects, hops):
    return chain(spark.createDataFrame([(s,) for s in subjects], ["subject"]), hops).orderBy("subject").collect()


def test_hub_to_leaf_stream_and_republish_back_to_the_hub_a_loop(spark, topology):
    work, observed = topology
    hub, leaf = (
        server_from_config(spark, work / "hub.conf", account="APP"),
        server_from_config(spark, work / "leaf.conf"),
    )
    assert (hub.name, hub.cluster, leaf.name, leaf.cluster) == ("hub", "us-west-1", "leaf", None)
    assert leaf.info["jetstream"] and leaf.info["leafnode_remotes"] == 1 and hub.info["leafnode_listen"]
    rows = _chain(
        spark, FROM_HUB, [publish(hub), forward(leaf, via="leaf"), stream(leaf, ORDERS), forward(hub, via="leaf")]
    )
    by = {r.subject: r for r in rows}
    # The hub's cluster-scoped destination, then the leaf's own mapping of what arrived.
    assert by["orders.7"].hop1 == "orders.hub.7" and by["orders.7"].hop2 == "leaf.orders.7"
    assert by["foo.cluster.scoped"].hop1 == "bar.cluster.scoped" and by["foo.cluster.scoped"].hop2 == "leaf.bar"
    assert by["back.9"].hop2 == "leaf.orders.9" and by["misc.1"].hop2 == "misc.1"
    # What the stream stores: exactly the chain's stored subjects (misc.1 is not taken), once each.
    stored = Counter(r.hop3_stored for r in rows if r.hop3_stored)
    assert stored == Counter({"stored.orders.7": 1, "stored.orders.9": 1, "leaf.bar": 1})
    assert all(observed["stored"][s] == 1 for s in stored)
    # Republished, not re-mapped by the leaf (its repub.* -> final.$1 is not applied) ...
    republished = {r.hop3 for r in rows if r.hop3}
    assert republished == {"repub.7", "repub.9"} and republished <= set(observed["leaf"])
    assert not any(s.startswith("final.") for s in observed["leaf"])
    # ... and re-mapped by the hub, where it arrives over the leaf connection: orders.hub.7 again.
    assert {r.final for r in rows if r.hop3} == {"orders.hub.7", "orders.hub.9"}
    assert by["orders.7"].path == [
        "hub: orders.hub.7",
        "leaf: leaf.orders.7",
        "stream ORDERS@leaf: stored stored.orders.7",
        "leaf: repub.7",
        "hub: orders.hub.7",
    ]
    # The loop the chain flags: orders.7 is back on the hub as orders.hub.7. The servers deliver it there a
    # second time, and stop: the hub does not send it back over the leaf connection it came from (the leaf
    # got leaf.orders.7 once and the stream stored it once). back.9 came back as orders.hub.9, which the
    # hub had not had before: no loop, delivered there once.
    assert by["orders.7"].loop == "hub (via leaf): back at hub as orders.hub.7"
    assert observed["hub"]["orders.hub.7"] == 2 and observed["leaf"]["leaf.orders.7"] == 1
    assert by["back.9"].loop is None and observed["hub"]["orders.hub.9"] == 1
    assert all(r.loop is None for r in rows if r.subject != "orders.7")


def test_leaf_publish_is_remapped_by_the_hub_and_not_by_the_gateway(spark, topology):
    work, observed = topology
    hub, leaf = (
        server_from_config(spark, work / "hub.conf", account="APP"),
        server_from_config(spark, work / "leaf.conf"),
    )
    east = server_from_config(spark, work / "east.conf", account="APP")
    rows = _chain(spark, FROM_LEAF + FROM_HUB, [publish(leaf), forward(hub, via="leaf"), forward(east, via="gateway")])
    by = {r.subject: r for r in rows}
    assert by["orders.8"].hop1 == "orders.8" and by["orders.8"].hop2 == "orders.hub.8"  # the hub's cluster scope
    assert by["orders.8"].final == "orders.hub.8" and by["orders.8"].hop3_rule is None  # east's orders.hub.* unused
    assert observed["hub"]["orders.hub.8"] == 1 and "orders.hub.8" in observed["east"]
    assert "east.orders.8" not in observed["east"] and "leaf.orders.8" not in observed["leaf"]  # not sent back
    # Published on the hub, through the gateway: east gets the hub's subjects as they are.
    from_hub = _chain(spark, FROM_HUB, [publish(hub), forward(east, via="gateway")])
    assert (
        {r.final for r in from_hub}
        == {"orders.hub.7", "bar.cluster.scoped", "back.9", "misc.1"}
        <= set(observed["east"])
    )
    assert not any(s.startswith("east.") for s in observed["east"])


# The docs page's example ("Subject Mapping and Transforms", "Priority and sequence of operations"), its
# blocks quoted as the page prints them; what each server needs to run and connect is added after them.
DOCS_HUB = """server_name: "hub"
cluster: { name: "hub" }
mappings: {
	orders.* orders.central.{{wildcard(1)}}
}"""
DOCS_LEAF = """server_name: "store1"
cluster: { name: "store1" }
mappings: {
	orders.central.* orders.local.{{wildcard(1)}}
}"""
# The page's stream, as printed, is not a config nats-server takes: `...` stands for the rest, a `""` typo
# ends the republish destination, and republish is a list, which the server refuses (error 10025: one
# object). The server wins: the same stream with republish as one object.
DOCS_STREAM = {
    "name": "orders",
    "subjects": ["orders.local.*"],
    "subject_transform": {"src": "orders.local.*", "dest": "orders.{{wildcard(1)}}"},
    "retention": "limits",
    "storage": "memory",
    "republish": {"src": "orders.*", "dest": "orders.trace.{{wildcard(1)}}"},
}
DOCS_SEED = Path("/work/shared/seeds/001_d125e6154ae130fa.txt")


def quoted(block: str) -> str:
    """The page's mapping with its destination quoted: unquoted, nats-server cuts `{{wildcard(1)}}` at its
    first `}` (and a setting after the block is then a parse error: see the test below)."""
    return re.sub(r"(orders\.\w+\.\{\{wildcard\(1\)\}\})", r'"\1"', block)


@pytest.fixture(scope="module")
def docs_topology():
    work = Path(tempfile.mkdtemp(prefix="subjxform-docs-chain-"))
    # The page's cluster blocks only name the cluster (what cluster-scoped mappings go by): no routes.
    ports = dict(zip(["hub", "hub_leaf", "leaf"], free_ports(3)))
    confs = {
        "hub": quoted(DOCS_HUB)
        + f"\nlisten: 127.0.0.1:{ports['hub']}\nleafnodes {{ listen: 127.0.0.1:{ports['hub_leaf']} }}\n",
        "leaf": quoted(DOCS_LEAF) + f'\nlisten: 127.0.0.1:{ports["leaf"]}\njetstream {{ store_dir: "{work / "js"}" }}\n'
        f'leafnodes {{ remotes: [ {{ url: "nats://127.0.0.1:{ports["hub_leaf"]}" }} ] }}\n',
    }
    procs = []
    try:
        for name in ("hub", "leaf"):
            (work / f"{name}.conf").write_text(confs[name])
            log = open(work / f"{name}.log", "w")
            procs.append(
                subprocess.Popen(
                    ["nats-server", "-c", str(work / f"{name}.conf")], stdout=log, stderr=subprocess.STDOUT
                )
            )
            wait_until(
                name, lambda p=ports[name]: listening(p), 15, procs, lambda n=name: (work / f"{n}.log").read_text()
            )
        wait_until("leaf node", lambda: "Leafnode connection created" in (work / "leaf.log").read_text(), 20, procs)
        hub, leaf = NatsClient(ports["hub"]), NatsClient(ports["leaf"])
        created = leaf.request("$JS.API.STREAM.CREATE.orders", DOCS_STREAM)
        assert "error" not in created, created
        hub.subscribe(">")
        leaf.subscribe("$probe.>")
        # Interest spreads over the leaf connection: a probe each way arrives.
        await_route(hub, leaf, "$probe.to_leaf")
        await_route(leaf, hub, "$probe.to_hub")
        for s in ("orders.1", "orders.central.3"):
            hub.publish(s, b"h")
        for s in ("orders.2", "orders.local.4"):
            leaf.publish(s, b"l")
        await_route(hub, leaf, "$probe.to_leaf_after")
        await_route(leaf, hub, "$probe.to_hub_after")

        def observe():
            info = leaf.request("$JS.API.STREAM.INFO.orders", {"subjects_filter": ">"})
            with hub.lock:
                hub_seen = Counter(s for s, _ in hub.msgs if not s.startswith(("_INBOX", "$")))
            return {"hub": hub_seen, "stored": Counter(info["state"].get("subjects", {}))}

        observed = settled(observe)
        hub.close()
        leaf.close()
        yield work, observed
    finally:
        for p in reversed(procs):
            stop(p, grace=10)
        shutil.rmtree(work, ignore_errors=True)


def test_the_docs_pages_chain_hub_leaf_stream_republish(spark, docs_topology):
    if DOCS_SEED.exists():  # the quotes are the page's words (whitespace aside)
        page = " ".join(DOCS_SEED.read_text().split())
        assert all(" ".join(block.split()) in page for block in (DOCS_HUB, DOCS_LEAF))
    work, observed = docs_topology
    hub, leaf = server_from_config(spark, work / "hub.conf"), server_from_config(spark, work / "leaf.conf")
    assert (hub.name, hub.cluster, leaf.name, leaf.cluster) == ("hub", "hub", "store1", "store1")
    # 1. published on the hub and mapped there, 2. re-mapped on arrival at the leaf, 3. stored by the
    # stream under its ingress transform, 4. republished, reaching the hub (no hub mapping takes it).
    hops = [publish(hub), forward(leaf, via="leaf"), stream(leaf, DOCS_STREAM), forward(hub, via="leaf")]
    rows = {r.subject: r for r in _chain(spark, ["orders.1", "orders.central.3"], hops)}
    assert rows["orders.1"].path == [
        "hub: orders.central.1",
        "store1: orders.local.1",
        "stream orders@store1: stored orders.1",
        "store1: orders.trace.1",
        "hub: orders.trace.1",
    ]
    assert (rows["orders.1"].hop1_rule, rows["orders.1"].hop2_rule, rows["orders.1"].hop4_rule) == (
        "orders.*",
        "orders.central.*",
        None,
    )
    assert rows["orders.central.3"].hop1 == "orders.central.3" and rows["orders.central.3"].hop3_stored == "orders.3"
    assert all(r.loop is None for r in rows.values())
    # Published on the leaf: orders.local.4 is stored directly; orders.2 goes up to the hub and is mapped there.
    from_leaf = {
        r.subject: r for r in _chain(spark, ["orders.2", "orders.local.4"], [publish(leaf), stream(leaf, DOCS_STREAM)])
    }
    assert from_leaf["orders.local.4"].hop2_stored == "orders.4" and from_leaf["orders.2"].hop2_stored is None
    up = Counter(
        r.final for r in _chain(spark, ["orders.2", "orders.local.4"], [publish(leaf), forward(hub, via="leaf")])
    )
    # What the servers did: the stream stored exactly the chain's subjects, once each; the hub's subscriber
    # got the hub's subjects, what came up from the leaf (mapped by the hub) and the republished ones.
    assert observed["stored"] == Counter({"orders.1": 1, "orders.3": 1, "orders.4": 1})
    assert up == Counter({"orders.central.2": 1, "orders.local.4": 1})
    assert (
        observed["hub"]
        == Counter(
            {
                "orders.central.1": 1,
                "orders.central.3": 1,
                "orders.trace.1": 1,
                "orders.trace.3": 1,
                "orders.trace.4": 1,
            }
        )
        + up
    )


def test_the_docs_pages_blocks_as_printed_are_what_the_server_refuses(spark, tmp_path):
    # Unquoted, the destination is cut at its first `}`: nats-server -t passes the block alone, and fails
    # as soon as any setting follows it (the stray `}` closed the document). server_from_config refuses it.
    alone, followed = tmp_path / "alone.conf", tmp_path / "followed.conf"
    alone.write_text(DOCS_HUB + "\n")
    followed.write_text(DOCS_HUB + "\nlisten: 127.0.0.1:4222\n")
    assert subprocess.run(["nats-server", "-t", "-c", str(alone)], capture_output=True).returncode == 0
    run = subprocess.run(["nats-server", "-t", "-c", str(followed)], capture_output=True, text=True)
    assert run.returncode == 1 and "Parse error on line 6" in run.stderr + run.stdout
    with pytest.raises(AccountsConfigError, match="quote"):
        server_from_config(spark, alone)
    assert quoted(DOCS_HUB) != DOCS_HUB
    followed.write_text(quoted(DOCS_HUB) + "\nlisten: 127.0.0.1:4222\n")
    assert subprocess.run(["nats-server", "-t", "-c", str(followed)], capture_output=True).returncode == 0
