"""A real nats-server as a test oracle: what it does with a mapping is what subject_transform must do.

``validate_mappings`` runs ``nats-server -t`` on a generated config (one mapping a line, so every
rejection maps back to its case); ``MappingServer`` starts the server with the accepted mappings,
publishes subjects through a raw NATS protocol connection and records what a ``>`` subscriber
receives. No client library: CONNECT / SUB / PUB / PING is all it takes.

Every server started here is stopped (context manager), every wait is bounded.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from processes import free_port, listening, stop, wait_until

NATS_SERVER = shutil.which("nats-server")

# A mapping as it is written in the generated config: `"src": "dest"` with Go-style escapes.
_ERROR_LINE = re.compile(r"^.*?:(\d+):(\d+): (.*)$")


def conf_string(s: str) -> str:
    """A double-quoted nats config string. The generators avoid `"` and `\\` (the config lexer's
    escapes differ between keys and values), so this only guards against them slipping in."""
    if '"' in s or "\\" in s or "\n" in s or "\r" in s:
        raise ValueError(f"cannot quote {s!r} for a nats config")
    return '"' + s + '"'


@dataclass
class Account:
    """One account of the generated config: its user and its mappings (src, dest)."""

    name: str
    mappings: list[tuple[str, str]] = field(default_factory=list)

    @property
    def user(self) -> str:
        return "u_" + self.name

    @property
    def password(self) -> str:
        return "p_" + self.name


def render_config(accounts: list[Account], port: int | None = None) -> tuple[str, dict[int, tuple[str, int]]]:
    """The config text, and for each line holding a mapping: (account name, index of the mapping).
    The line of an account's `mappings {` maps to (account name, -1): nats-server reports an invalid
    source there, and stops reading that account's mappings."""
    lines = []
    where: dict[int, tuple[str, int]] = {}
    if port is not None:
        lines += ["listen: 127.0.0.1:%d" % port, "max_control_line: 65536", "max_payload: 65536"]
    lines.append("accounts {")
    for acc in accounts:
        lines.append(f"  {acc.name} {{")
        lines.append(f"    users: [{{user: {acc.user}, password: {acc.password}}}]")
        lines.append("    mappings {")
        where[len(lines)] = (acc.name, -1)
        for i, (src, dest) in enumerate(acc.mappings):
            lines.append(f"      {conf_string(src)}: {conf_string(dest)}")
            where[len(lines)] = (acc.name, i)  # 1-based line number of the line just added
        lines.append("    }")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n", where


def validate_mappings(accounts: list[Account], workdir: str, timeout: float = 60) -> dict[tuple[str, int], str]:
    """nats-server's verdict on every mapping: {(account, index): error message} for the rejected ones.

    One `nats-server -t` run reports every bad mapping with its line number. An invalid source is
    reported for its account only, so such accounts are checked again one mapping per account.
    """
    errors = _validate_once(accounts, workdir, timeout)
    blamed = {name for (name, i) in errors if i == -1}
    if blamed:
        errors = {k: v for k, v in errors.items() if k[0] not in blamed}
        alone = [Account(f"{a.name}_{i}", [m]) for a in accounts if a.name in blamed for i, m in enumerate(a.mappings)]
        back = {f"{a.name}_{i}": (a.name, i) for a in accounts if a.name in blamed for i in range(len(a.mappings))}
        for (name, _i), message in _validate_once(alone, workdir, timeout).items():
            errors[back[name]] = message
    return errors


def _validate_once(accounts: list[Account], workdir: str, timeout: float) -> dict[tuple[str, int], str]:
    text, where = render_config(accounts)
    path = os.path.join(workdir, "validate.conf")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    proc = subprocess.run([NATS_SERVER, "-c", path, "-t"], capture_output=True, text=True, timeout=timeout)
    errors: dict[tuple[str, int], str] = {}
    if proc.returncode == 0:
        return errors
    unexplained = []
    for line in (proc.stdout + proc.stderr).splitlines():
        line = line.removeprefix("nats-server: ")
        m = _ERROR_LINE.match(line)
        if m and int(m.group(1)) in where and m.group(3):
            errors[where[int(m.group(1))]] = m.group(3)
        elif line.strip():
            unexplained.append(line)
    if not errors:
        raise RuntimeError(f"nats-server -t failed without a mapping error: {unexplained[:5]}")
    return errors


class MappingServer:
    """A nats-server with the given (valid) accounts, on 127.0.0.1 and a random port."""

    def __init__(self, accounts: list[Account], workdir: str | None = None):
        self.accounts = accounts
        self._own_dir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="subjxform-nats-")
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def __enter__(self) -> MappingServer:
        last_error = None
        for _attempt in range(3):  # a random port may be taken meanwhile: try another
            self.port = free_port()
            text, _ = render_config(self.accounts, self.port)
            path = os.path.join(self.workdir, "server.conf")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            log = open(os.path.join(self.workdir, "server.log"), "wb")
            self.proc = subprocess.Popen([NATS_SERVER, "-c", path], stdout=log, stderr=subprocess.STDOUT)
            log.close()
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                        return self
                except OSError as e:
                    last_error = e
                    time.sleep(0.05)
            self._stop()
        with open(os.path.join(self.workdir, "server.log"), encoding="utf-8", errors="replace") as f:
            tail = f.read()[-2000:]
        raise RuntimeError(f"nats-server did not start ({last_error}): {tail}")

    def _stop(self) -> None:
        if self.proc is not None:
            stop(self.proc, grace=10)
        self.proc = None

    def __exit__(self, *exc) -> None:
        self._stop()
        if self._own_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def deliveries(self, account: Account, subjects: list[str], timeout: float = 60) -> list[list[str]]:
        """Publishes every subject as `account` and returns, for each, the subjects a `>` subscriber of
        that account received (in order): [] when the server dropped the message."""
        with RawClient("127.0.0.1", self.port, account.user, account.password, timeout) as c:
            return c.round_trip(subjects)


class ProtocolError(RuntimeError):
    pass


class RawClient:
    """The NATS client protocol over a socket, just enough to publish and receive."""

    CHUNK = 400  # publishes between PING barriers: keeps both sides' buffers small

    def __init__(self, host: str, port: int, user: str, password: str, timeout: float, jwt_auth=None):
        """`jwt_auth`: (user JWT, a function signing bytes with the user's nkey) instead of user/password."""
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""
        self.deadline = time.monotonic() + timeout
        info = self._line()
        if not info.startswith(b"INFO "):
            raise ProtocolError(f"expected INFO, got {info[:200]!r}")
        connect = {
            "verbose": False,
            "pedantic": False,
            "user": user,
            "pass": password,
            "echo": True,
            "protocol": 1,
            "lang": "python-raw",
            "version": "0",
        }
        if jwt_auth is not None:
            import base64

            user_jwt, sign = jwt_auth
            nonce = json.loads(info[5:])["nonce"].encode()
            connect = {
                **connect,
                "user": None,
                "pass": None,
                "jwt": user_jwt,
                "sig": base64.urlsafe_b64encode(sign(nonce)).rstrip(b"=").decode(),
            }
        self.sock.sendall(b"CONNECT " + json.dumps(connect).encode() + b"\r\nSUB > 1\r\nPING\r\n")
        self._until_pong({})

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc) -> None:
        self.sock.close()

    def _fill(self) -> None:
        if time.monotonic() > self.deadline:
            raise TimeoutError("nats-server did not answer in time")
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ProtocolError("nats-server closed the connection")
        self.buf += chunk

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _bytes(self, n: int) -> bytes:
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2 :]
        return data

    def _until_pong(self, received: dict[int, list[str]]) -> None:
        while True:
            line = self._line()
            if line == b"PONG":
                return
            if line == b"PING":
                self.sock.sendall(b"PONG\r\n")
            elif line.startswith(b"MSG "):
                parts = line.split(b" ")
                size = int(parts[-1])
                payload = self._bytes(size)
                received.setdefault(int(payload), []).append(parts[1].decode("utf-8", "surrogateescape"))
            elif line.startswith(b"-ERR"):
                raise ProtocolError(line.decode("utf-8", "replace"))
            elif line.startswith(b"+OK") or line.startswith(b"INFO"):
                pass
            else:
                raise ProtocolError(f"unexpected line {line[:200]!r}")

    def publish(self, subject: str, payload: int) -> None:
        data = str(payload).encode()
        self.sock.sendall(b"PUB %s %d\r\n%s\r\n" % (subject.encode("utf-8"), len(data), data))

    def flush(self, received: dict[int, list[str]]) -> None:
        """PING and read until PONG: every message the server queued for this connection before it is in
        `received` (payload -> subjects)."""
        self.sock.sendall(b"PING\r\n")
        self._until_pong(received)

    def round_trip(self, subjects: list[str]) -> list[list[str]]:
        received: dict[int, list[str]] = {}
        for start in range(0, len(subjects), self.CHUNK):
            out = []
            for i in range(start, min(start + self.CHUNK, len(subjects))):
                payload = str(i).encode()
                # surrogateescape: a subject that is not valid UTF-8 goes out as its original bytes
                out.append(
                    b"PUB %s %d\r\n%s\r\n" % (subjects[i].encode("utf-8", "surrogateescape"), len(payload), payload)
                )
            out.append(b"PING\r\n")
            self.sock.sendall(b"".join(out))
            self._until_pong(received)
        return [received.get(i, []) for i in range(len(subjects))]


def run_accounts(binary: str, config: str, connect, publish) -> tuple[dict[str, dict], str]:
    """A server of `binary` on `config` (a listen port added); `connect(port)` gives a client per account (name ->
    RawClient, each subscribed to `>`), `publish(clients)` publishes; then what each account received (payload ->
    subjects), every queue read to its end, and the server's log. A server whose process exits (a crash) stops
    it there: what was delivered before is what there is."""
    workdir = tempfile.mkdtemp(prefix="subjxform-accounts-")
    port = free_port()
    path = os.path.join(workdir, "server.conf")
    with open(path, "w") as f:
        f.write(f"listen: 127.0.0.1:{port}\n" + config)
    log = open(os.path.join(workdir, "server.log"), "wb")
    proc = subprocess.Popen([binary, "-c", path], stdout=log, stderr=subprocess.STDOUT)
    received: dict[str, dict] = {}
    try:
        wait_until("nats-server", lambda: listening(port), 20, [proc])
        clients = connect(port)
        received = {a: {} for a in clients}
        try:
            publish(clients)
            for _ in range(2):  # the publishers' PONGs first, then every receiver's queue
                for a, c in clients.items():
                    c.flush(received[a])
        except (OSError, ProtocolError, TimeoutError):
            try:
                proc.wait(timeout=5)  # a crash: the process exits
            except subprocess.TimeoutExpired:
                raise  # the server is up: the error is the test's
        finally:
            for c in clients.values():
                c.sock.close()
    finally:
        stop(proc, grace=10)
        log.close()
        with open(os.path.join(workdir, "server.log"), errors="replace") as f:
            text = f.read()
        shutil.rmtree(workdir, ignore_errors=True)
    return received, text
