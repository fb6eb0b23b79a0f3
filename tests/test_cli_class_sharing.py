"""The command line's JVM loads its classes from an application class-data-sharing archive
(subjxform.cli.shared_classes): written by a first run, moved into place by a later one, used from then on, with
the same answers and nothing more on stdout or stderr; never on a Java that cannot, never when turned off. (How
much faster: bench/cli_start.py, not a test.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from subjxform.cli import java_feature_version, shared_classes

JAVA = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else None


def mapping(cache: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "subjxform", "mapping", "orders.*", "x.{{wildcard(1)}}", "orders.eu"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XDG_CACHE_HOME": str(cache), **env},
    )


def fake_java(tmp_path: Path, version: str) -> str:
    """A Java home whose release file says `version` (its launcher is never started)."""
    (tmp_path / "bin").mkdir(parents=True)
    (tmp_path / "bin" / "java").write_text("")
    (tmp_path / "release").write_text(f'IMPLEMENTOR="x"\nJAVA_VERSION="{version}"\n')
    return str(tmp_path / "bin" / "java")


@pytest.mark.parametrize("version, feature", [("1.8.0_402", 8), ("11.0.13", 11), ("17.0.15", 17), ("21", 21)])
def test_the_java_version_is_read_from_its_release_file(tmp_path, version, feature):
    assert java_feature_version(fake_java(tmp_path, version)) == feature
    assert java_feature_version(str(tmp_path / "no" / "home" / "bin" / "java")) is None


def test_no_archive_options_for_a_java_before_13_or_when_turned_off(tmp_path, monkeypatch):
    jar = tmp_path / "cli.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert shared_classes(fake_java(tmp_path / "j11", "11.0.13"), [str(jar)], "subjxform.cli.Main") == []
    java17 = fake_java(tmp_path / "j17", "17.0.15")
    writes = shared_classes(java17, [str(jar)], "subjxform.cli.Main")
    assert [o.split("=")[0] for o in writes] == ["-Xlog:cds", "-Xlog:cds+dynamic", "-XX:ArchiveClassesAtExit"]
    assert writes[-1].split("=", 1)[1].startswith(str(tmp_path / "cache" / "subjxform" / "class-sharing"))
    monkeypatch.setenv("SUBJXFORM_CLASS_SHARING", "0")
    assert shared_classes(java17, [str(jar)], "subjxform.cli.Main") == []


def test_an_archive_written_by_a_run_that_is_still_going_is_left_alone(tmp_path, monkeypatch):
    jar = tmp_path / "cli.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    java = fake_java(tmp_path / "j17", "17.0.15")
    written = Path(shared_classes(java, [str(jar)], "M")[-1].split("=", 1)[1])
    written.write_bytes(b"archive")  # this process (alive) is its writer
    assert shared_classes(java, [str(jar)], "M")[-1].startswith("-XX:ArchiveClassesAtExit=")
    gone = written.with_name(written.name.replace(f".{os.getpid()}-", ".999999999-"))  # no such process
    written.rename(gone)
    used = shared_classes(java, [str(jar)], "M")[-1]
    assert used == f"-XX:SharedArchiveFile={gone.parent / gone.name.split('.jsa.')[0]}.jsa"
    assert not gone.exists()
    jar.write_bytes(b"PK, rebuilt")  # another jar: another archive, written anew
    assert shared_classes(java, [str(jar)], "M")[-1].startswith("-XX:ArchiveClassesAtExit=")


@pytest.mark.skipif(
    java_feature_version(JAVA or __import__("shutil").which("java") or "") in (None, 8, 9, 10, 11, 12),
    reason="the Java on this machine writes no dynamic archive (before 13)",
)
def test_the_command_writes_then_uses_the_archive_with_the_same_answers(tmp_path):
    off = mapping(tmp_path / "off", SUBJXFORM_CLASS_SHARING="0")
    assert off.returncode == 0 and off.stdout.startswith("x.eu\n") and not (tmp_path / "off").exists()
    answer = (0, off.stdout, off.stderr)
    first = mapping(tmp_path)
    assert (first.returncode, first.stdout, first.stderr) == answer
    folder = tmp_path / "subjxform" / "class-sharing"
    written = list(folder.iterdir())
    if not written:
        pytest.skip("this Java has no base CDS archive to build on: it runs without one, as it should")
    second = mapping(tmp_path)  # moves the first run's archive into place, and runs with it
    assert (second.returncode, second.stdout, second.stderr) == answer
    archives = sorted(p.name for p in folder.iterdir())
    assert len(archives) == 1 and archives[0].endswith(".jsa")
    third = mapping(tmp_path)
    assert (third.returncode, third.stdout, third.stderr) == answer
