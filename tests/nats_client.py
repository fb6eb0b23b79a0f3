"""Just enough of the NATS client protocol (and a throwaway nats-server) to ask JetStream things in tests.

One socket, synchronous requests through a reply subject; a background reader keeps every MSG it
receives so that republished messages can be collected too. No extra packages.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager

from processes import free_port, listening, stop, wait_until


@contextmanager
def jetstream_server(binary: str = "nats-server"):
    """A `nats-server -js` (or the given binary: a line's or a release's) on 127.0.0.1, a random port and a
    temporary store; stopped afterwards."""
    store = tempfile.mkdtemp(prefix="subjxform-js-")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", store],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until("nats-server", lambda: listening(port), 10, [proc])
        yield port
    finally:
        stop(proc, grace=10)
        shutil.rmtree(store, ignore_errors=True)


class NatsClient:
    def __init__(self, port: int, auth: dict | None = None, tls=None, sign=None):
        """`auth`: fields added to CONNECT (user/pass, auth_token, jwt, nkey); `tls`: an ssl.SSLContext to
        upgrade the connection with after INFO; `sign(nonce) -> sig`: answers the server's nonce (NKey, JWT)."""
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""
        self.lock = threading.Condition()
        self.msgs: list[tuple[str, bytes]] = []  # (subject, payload) of every MSG, in order
        info = json.loads(self._line()[5:] or b"{}")  # INFO {...}
        if tls is not None:
            self.sock = tls.wrap_socket(self.sock, server_hostname="127.0.0.1")
        fields = {"verbose": False, "pedantic": False, "headers": True, **(auth or {})}
        if sign is not None and "nonce" in info:
            fields["sig"] = sign(info["nonce"].encode())
        self._send(b"CONNECT " + json.dumps(fields).encode() + b"\r\nPING\r\n")
        self.sid = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n: int) -> bytes:
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2 :]
        return data

    def _read(self) -> None:
        try:
            while True:
                line = self._line()
                if line.startswith(b"PING"):
                    self._send(b"PONG\r\n")
                elif line.startswith(b"MSG"):
                    parts = line.split()
                    payload = self._exact(int(parts[-1]))
                    with self.lock:
                        self.msgs.append((parts[1].decode("utf-8", "surrogateescape"), payload))
                        self.lock.notify_all()
                elif line.startswith(b"HMSG"):
                    parts = line.split()
                    data = self._exact(int(parts[-1]))
                    with self.lock:
                        self.msgs.append((parts[1].decode("utf-8", "surrogateescape"), data[int(parts[-2]) :]))
                        self.lock.notify_all()
        except (OSError, ConnectionError):
            return

    def subscribe(self, subject: str) -> None:
        self.sid += 1
        self._send(f"SUB {subject} {self.sid}\r\n".encode())

    def publish(self, subject: str, payload: bytes = b"", reply: str | None = None) -> None:
        head = f"PUB {subject} {reply + ' ' if reply else ''}{len(payload)}\r\n".encode()
        self._send(head + payload + b"\r\n")

    def request(self, subject: str, body: dict | bytes = b"", timeout: float = 5) -> dict:
        inbox = f"_INBOX.{self.sid + 1}"
        self.subscribe(inbox)
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.publish(subject, payload, reply=inbox)
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for s, p in self.msgs:
                    if s == inbox:
                        return json.loads(p)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(subject)
                self.lock.wait(left)

    def received(self, subject_prefix: str) -> list[str]:
        with self.lock:
            return [s for s, _ in self.msgs if s.startswith(subject_prefix)]

    def close(self) -> None:
        self.sock.close()


def await_route(sender: NatsClient, receiver: NatsClient, probe: str, timeout: float = 20) -> None:
    """Waits until a message `sender` publishes reaches `receiver` (subscribed to a filter that takes
    `probe`.N): a probe each try, `probe`.1, `probe`.2, ... Messages on one route keep their order, so when a
    probe arrives, the interest made before its subscription has spread, and what was published before it has
    arrived. Each wait needs a `probe` of its own (a late probe of an earlier wait would answer it)."""
    tries = iter(range(1, 1 << 30))

    def arrived() -> bool:
        sender.publish(f"{probe}.{next(tries)}")
        with receiver.lock:
            return receiver.lock.wait_for(lambda: any(s.startswith(probe + ".") for s, _ in receiver.msgs), 0.1)

    wait_until(f"a message from {probe} to arrive", arrived, timeout, [])


def settled(observe, timeout: float = 20, quiet: float = 0.3):
    """What `observe()` returns once it has not changed for `quiet` seconds: for what no probe can follow (a
    stream stores and republishes on its own schedule, after the message that made it arrived)."""
    deadline = time.monotonic() + timeout
    last = observe()
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = observe()
        if now == last:
            return now
        last = now
    raise TimeoutError(f"still changing after {timeout:.0f} s: {last}")
