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

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from nats_client import NatsClient
from processes import free_ports, listening, stop, wait_until
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
      repub.*: "hub.repub.$1"
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

ORDERS = {"name": "ORDERS", "subjects": ["leaf.orders.*", "leaf.bar"], "storage": "memory",
          "subject_transform": {"src": "leaf.orders.*", "dest": "stored.orders.$1"},
          "republish": {"src": "stored.orders.*", "dest": "repub.$1"}}

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
            procs.append(subprocess.Popen(["nats-server", "-c", str(work / f"{name}.conf")], stdout=log, stderr=subprocess.STDOUT))
            wait_until(name, lambda p=ports[name]: listening(p), 15, procs, lambda n=name: (work / f"{n}.log").read_text())
        leaf, hub, east = NatsClient(ports["leaf"]), NatsClient(ports["hub"]), NatsClient(ports["east"])
        # The leaf and the gateway connect, and interest spreads.
        wait_until("leaf node and gateway", lambda: "Leafnode connection created" in (work / "leaf.log").read_text()
                   and "Outbound gateway connection to \"east\"" in (work / "hub.log").read_text(), 20, procs)
        created = leaf.request("$JS.API.STREAM.CREATE.ORDERS", ORDERS)
        assert "error" not in created, created
        for s in ("leaf.>", "repub.>", "final.>"):
            leaf.subscribe(s)
        hub.subscribe(">")
        east.subscribe(">")
        time.sleep(2)  # subscriptions propagate over the leaf connection and the gateway
        for s in FROM_HUB:
            hub.publish(s, b"h")
        for s in FROM_LEAF:
            leaf.publish(s, b"l")
        time.sleep(2)
        info = leaf.request("$JS.API.STREAM.INFO.ORDERS", {"subjects_filter": ">"})

        def seen(client):
            return {s for s, _ in client.msgs if not s.startswith(("_INBOX", "$"))}

        observed = {"leaf": seen(leaf), "hub": seen(hub), "east": seen(east),
                    "stored": set(info["state"].get("subjects", {}))}
        for c in (leaf, hub, east):
            c.close()
        yield work, observed
    finally:
        for p in reversed(procs):
            stop(p, grace=10)
        shutil.rmtree(work, ignore_errors=True)


def _chain(spark, subjects, hops):
    return chain(spark.createDataFrame([(s,) for s in subjects], ["subject"]), hops).orderBy("subject").collect()


def test_hub_to_leaf_stream_and_republish_back_to_the_hub(spark, topology):
    work, observed = topology
    hub, leaf = server_from_config(spark, work / "hub.conf", account="APP"), server_from_config(spark, work / "leaf.conf")
    assert (hub.name, hub.cluster, leaf.name, leaf.cluster) == ("hub", "us-west-1", "leaf", None)
    assert leaf.info["jetstream"] and leaf.info["leafnode_remotes"] == 1 and hub.info["leafnode_listen"]
    rows = _chain(spark, FROM_HUB, [publish(hub), forward(leaf, via="leaf"), stream(leaf, ORDERS), forward(hub, via="leaf")])
    by = {r.subject: r for r in rows}
    # The hub's cluster-scoped destination, then the leaf's own mapping of what arrived.
    assert by["orders.7"].hop1 == "orders.hub.7" and by["orders.7"].hop2 == "leaf.orders.7"
    assert by["foo.cluster.scoped"].hop1 == "bar.cluster.scoped" and by["foo.cluster.scoped"].hop2 == "leaf.bar"
    assert by["back.9"].hop2 == "leaf.orders.9" and by["misc.1"].hop2 == "misc.1"
    # What the stream stores: exactly the chain's stored subjects (misc.1 is not taken).
    stored = {r.hop3_stored for r in rows if r.hop3_stored}
    assert stored == {"stored.orders.7", "stored.orders.9", "leaf.bar"} and stored <= observed["stored"]
    # Republished, not re-mapped by the leaf (its repub.* -> final.$1 is not applied) ...
    republished = {r.hop3 for r in rows if r.hop3}
    assert republished == {"repub.7", "repub.9"} and republished <= observed["leaf"]
    assert not any(s.startswith("final.") for s in observed["leaf"])
    # ... and re-mapped by the hub, where it arrives over the leaf connection.
    assert {r.final for r in rows if r.hop3} == {"hub.repub.7", "hub.repub.9"} <= observed["hub"]
    assert by["orders.7"].path == ["hub: orders.hub.7", "leaf: leaf.orders.7", "stream ORDERS@leaf: stored stored.orders.7",
                                   "leaf: repub.7", "hub: hub.repub.7"]
    assert all(r.loop is None for r in rows)


def test_leaf_publish_is_remapped_by_the_hub_and_not_by_the_gateway(spark, topology):
    work, observed = topology
    hub, leaf = server_from_config(spark, work / "hub.conf", account="APP"), server_from_config(spark, work / "leaf.conf")
    east = server_from_config(spark, work / "east.conf", account="APP")
    rows = _chain(spark, FROM_LEAF + FROM_HUB, [publish(leaf), forward(hub, via="leaf"), forward(east, via="gateway")])
    by = {r.subject: r for r in rows}
    assert by["orders.8"].hop1 == "orders.8" and by["orders.8"].hop2 == "orders.hub.8"  # the hub's cluster scope
    assert by["orders.8"].final == "orders.hub.8" and by["orders.8"].hop3_rule is None  # east's orders.hub.* unused
    assert {"orders.hub.8"} <= observed["hub"] and "orders.hub.8" in observed["east"]
    assert "east.orders.8" not in observed["east"] and "leaf.orders.8" not in observed["leaf"]  # not sent back
    # Published on the hub, through the gateway: east gets the hub's subjects as they are.
    from_hub = _chain(spark, FROM_HUB, [publish(hub), forward(east, via="gateway")])
    assert {r.final for r in from_hub} == {"orders.hub.7", "bar.cluster.scoped", "back.9", "misc.1"} <= observed["east"]
    assert not any(s.startswith("east.") for s in observed["east"])
