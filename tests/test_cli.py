"""The `subjxform` command: `nats server mapping` on the jar's engine, without Spark."""

from __future__ import annotations

import subprocess
import sys

import pytest

# The docs page's `nats server mapping` examples (with the output a real nats-server gives: the
# docs print `orders.order1` for the token-dropping example, the server gives `foo.order1`).
DOC_EXAMPLES = [
    ("foo", "bar", "foo", "bar"),
    (">", "baz.>", "bar.a.b", "baz.bar.a.b"),
    ("bar.*.*", "baz.{{wildcard(2)}}.{{wildcard(1)}}", "bar.a.b", "baz.b.a"),
    ("orders.*.*", "foo.{{wildcard(2)}}", "orders.local.order1", "foo.order1"),
    ("*", "{{split(1,-)}}", "foo-bar", "foo.bar"),
    ("*", "{{split(1,--)}}", "foo--bar", "foo.bar"),
    ("*", "{{splitfromleft(1,4)}}", "1234567", "1234.567"),
    ("*", "{{splitfromright(1,4)}}", "1234567", "123.4567"),
    ("*", "{{slicefromleft(1,2)}}", "1234567", "12.34.56.7"),
    ("*", "{{slicefromright(1,2)}}", "1234567", "1.23.45.67"),
    ("neworders.*", "neworders.{{wildcard(1)}}.{{partition(3,1)}}", "neworders.customerid1", "neworders.customerid1.0"),
    ("foo.*.*", "foo.{{wildcard(1)}}.{{wildcard(2)}}.{{partition(5,1,2)}}", "foo.us.customerid", "foo.us.customerid.0"),
]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "subjxform", *args], input=stdin, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("src,dest,subject,expected", DOC_EXAMPLES)
def test_docs_examples(src, dest, subject, expected):
    result = run("mapping", src, dest, subject)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{expected}\n\n"


def test_several_subjects_and_a_non_matching_one():
    result = run("mapping", "neworders.*", "neworders.{{wildcard(1)}}.{{partition(3,1)}}",
                 "neworders.customerid2", "neworders.customerid3", "test")
    assert result.stdout.split("\n\n")[:3] == [
        "neworders.customerid2.2", "neworders.customerid3.1", "Error: no matching transforms available"]


def test_interactive_prompt_until_an_empty_subject():
    result = run("mapping", "foo", "bar", stdin="foo\ntest\n\nnever.read\n")
    assert result.returncode == 0
    assert result.stdout.startswith("Enter subjects to test, empty subject terminates.\n")
    assert "? Subject bar\n" in result.stdout
    assert "? Subject Error: no matching transforms available\n" in result.stdout
    assert "never.read" not in result.stdout


def test_an_invalid_transform_is_an_error_in_nats_servers_words():
    result = run("mapping", "a.*", "b.{{wildcard(2)}}", "a.x")
    assert result.returncode == 1
    assert result.stdout.strip() == "Error: invalid mapping destination: wildcard index out of range in {{wildcard(2)}}: [2]"


def test_bad_subjects_and_dropped_results_are_explained():
    result = run("mapping", "a.*", "b.{{split(1,-)}}", "a..b", "a.--x")
    outputs = result.stdout.split("\n\n")
    assert outputs[0] == "Error: invalid subject"
    assert outputs[1].startswith("Error: the result has an empty token")
