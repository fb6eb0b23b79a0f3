"""Stream configs per server line: each supported line's real binary (JetStream on, installed by
scripts/nats-servers.sh into .tools/nats-server/<line>/) creates or refuses a stream with transforms that the
lines judge differently; `StreamConfig.plan(cfg, ServerVersion.parse(line))` must agree: accepted, or refused
with the same description and error code. 2.10 checks a stream's transforms only as transforms (white space
and `left` pass; other texts, code 10049). Every line checks a republish that way too."""

from __future__ import annotations

import json
import os

import pytest

from nats_client import NatsClient, jetstream_server
from server_lines_golden import LINES, ROOT

# (line, stream name) -> what the engine says where it knowingly differs from that line's binary (accepted).
# None: every line's republish is checked as a transform (white space in a literal, and on 2.11-2.14 `left`,
# which their parsers read though their mapping checks do not know it, pass there as in the binaries).
KNOWN_GAPS: dict[tuple[str, str], tuple[str, int]] = {}

DESTINATIONS = [
    "b.{{left(1,2)}}",
    "b c.$1",
    "b..$1",
    "b.{{random(3)}}",
    "b.{{unknown(1)}}",
    "b.{{partition(0,1)}}",
    "b.$2",
    "b.{{partition(2147483648,1)}}",
    "b.{{slicefromleft(1,2147483648)}}",
]


def configs() -> list[dict]:
    out = []
    for i, dest in enumerate(DESTINATIONS):
        t = {"src": "a.*", "dest": dest}
        out.append({"name": f"I{i}", "subjects": [f"i{i}.*"], "subject_transform": {"src": f"i{i}.*", "dest": dest}})
        out.append({"name": f"S{i}", "sources": [{"name": "O", "subject_transforms": [t]}]})
        out.append({"name": f"M{i}", "mirror": {"name": "O", "subject_transforms": [t]}})
        out.append({"name": f"R{i}", "subjects": [f"r{i}.*"], "republish": {"src": f"r{i}.*", "dest": "x" + dest}})
    return out


def server_verdicts(line: str, cfgs: list[dict]) -> list[tuple[str | None, int | None]]:
    binary = os.path.join(ROOT, ".tools", "nats-server", line, "bin", "nats-server")
    if not os.access(binary, os.X_OK):
        pytest.skip(f"no nats-server {line}: run scripts/nats-servers.sh")
    with jetstream_server(binary) as port:
        client = NatsClient(port)
        try:
            assert "error" not in client.request("$JS.API.STREAM.CREATE.O", {"name": "O", "subjects": ["a.*"]})
            out = []
            for cfg in cfgs:
                r = client.request(f"$JS.API.STREAM.CREATE.{cfg['name']}", cfg)
                out.append((r["error"]["description"], r["error"]["err_code"]) if "error" in r else (None, None))
            return out
        finally:
            client.close()


@pytest.mark.parametrize("line", LINES)
def test_stream_transforms_are_judged_as_each_line_judges_them(spark, line):
    cfgs = configs()
    theirs = server_verdicts(line, cfgs)
    config = spark._jvm.subjxform.config
    version = spark._jvm.subjxform.engine.ServerVersion.parse(line)
    problems = []
    for cfg, (description, code) in zip(cfgs, theirs):
        try:
            config.StreamConfig.plan(config.StreamConfigJson.parse(json.dumps(cfg)), version)
            ours = (None, None)
        except Exception as e:
            java = getattr(e, "_origin", None) or getattr(e, "java_exception", None)
            if java is None or java.getClass().getName() != "subjxform.config.InvalidStreamConfigException":
                raise
            ours = (java.description(), java.errCode())
        if (line, cfg["name"]) in KNOWN_GAPS:
            assert (description, code) == (None, None) and ours == KNOWN_GAPS[(line, cfg["name"])], (
                cfg,
                ours,
                description,
            )
        elif ours != (description, code):
            problems.append(f"{json.dumps(cfg)}: nats-server {line} {(description, code)}, engine {ours}")
    assert sum(1 for d, _ in theirs if d is None) >= 8 and sum(1 for d, _ in theirs if d) >= 8, theirs
    assert not problems, "\n".join(problems)
