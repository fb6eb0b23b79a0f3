"""The servers tests start (nats-server, Spark Connect, a standalone Spark cluster): a free port,
waiting until one listens, and stopping them whatever happened."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable

# Every JVM the tests start lives for seconds to a few minutes: HotSpot's optimizing compiler (C2) costs
# such a JVM more CPU than it saves it (measured on this project's two-core CI machine: the Spark JVMs of
# a pytest run used 35-40% less CPU with the first tier, C1, alone). The tests check answers, not speed;
# the benchmarks (bench/) run with HotSpot's default tiers. C1's frames are larger than C2's: a regex over a long
# token (java.util.regex recurses per repetition) overflowed a task thread's default 1 MB stack in the portable
# suite, so the threads get 4 MB (the stack is reserved, not used, until it is needed).
TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -Xss4m"


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(n: int) -> list[int]:
    """n distinct free ports: each socket stays bound until all are chosen, so no two are the same."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def wait_until(
    what: str,
    ready: Callable[[], bool],
    timeout: float,
    procs: list[subprocess.Popen],
    log: Callable[[], str] = lambda: "",
) -> None:
    """Polls `ready` until it holds; fails at once, with the log, when one of `procs` has exited."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if ready():
                return
        except OSError:
            pass
        for proc in procs:
            if proc.poll() is not None:
                raise RuntimeError(f"exited with {proc.returncode} while waiting for {what}: {log()}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not ready after {timeout:.0f} s: {log()}")
        time.sleep(0.1)


def stop(proc: subprocess.Popen, grace: float = 20, group: bool = False) -> None:
    """SIGTERM, then SIGKILL after `grace` seconds; `group`: the whole process group (a process started
    with `start_new_session=True`, e.g. a Spark launcher script and the JVM it starts)."""

    def send(sig: int) -> None:
        if group:
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass
        elif proc.poll() is None:
            proc.send_signal(sig)

    send(signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        proc.wait(10)
