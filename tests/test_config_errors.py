"""The one converter of a plan SQL function's refusal into the Python exception (streams, accounts and
consumer groups use it): what it converts and what it leaves alone. No Spark: a stand-in for PySpark's
error with the methods the converter reads."""

from __future__ import annotations

import pytest

from subjxform._compat import raise_config_error


class FakeSparkError(Exception):
    """A PySpark error as the converter sees it: a condition and message parameters (None and {} where a
    Spark Connect 3.5 client has only the message)."""

    def __init__(self, message: str, condition: str | None = None, parameters: dict | None = None):
        super().__init__(message)
        self.condition = condition
        self.parameters = parameters or {}

    def getCondition(self):  # noqa: N802 (PySpark's name)
        return self.condition

    def getMessageParameters(self):  # noqa: N802 (PySpark's name)
        return self.parameters


class PlanError(ValueError):
    pass


def refusal(function: str, value: str) -> FakeSparkError:
    return FakeSparkError(
        f"[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) `config` in `{function}` is invalid: {value}.",
        "INVALID_PARAMETER_VALUE.PATTERN",
        {"parameter": "`config`", "functionName": f"`{function}`", "value": value},
    )


def test_the_function_s_refusal_becomes_the_config_error_with_the_note_after_it():
    e = refusal("stream_config_plan", "subjects: stream name is required (nats-server error 10058)")
    with pytest.raises(PlanError) as raised:
        raise_config_error(e, "stream_config_plan", PlanError, " (a note)")
    assert str(raised.value) == "subjects: stream name is required (nats-server error 10058) (a note)"
    assert raised.value.__cause__ is e


def test_without_a_note_the_message_is_the_refusal_s_words_alone():
    with pytest.raises(PlanError, match=r"^max_members: must be at least 1$"):
        raise_config_error(
            refusal("consumer_group_plan", "max_members: must be at least 1"), "consumer_group_plan", PlanError
        )


def test_a_spark_connect_3_5_error_is_read_from_its_message():
    # No condition and no parameters there: only the message, which the converter reads back.
    e = FakeSparkError(
        "[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) `config` in `accounts_plan` is invalid: "
        "server.conf:3: account A: no such thing."
    )
    with pytest.raises(PlanError, match=r"^server.conf:3: account A: no such thing$"):
        raise_config_error(e, "accounts_plan", PlanError)


@pytest.mark.parametrize(
    "error",
    [
        refusal("accounts_plan", "another function's refusal"),
        FakeSparkError("[DIVIDE_BY_ZERO] Division by zero.", "DIVIDE_BY_ZERO", {"config": "x"}),
        FakeSparkError("a Connect error of another kind, message only"),
    ],
    ids=["another function", "another condition", "message only"],
)
def test_any_other_error_is_raised_as_it_is(error):
    with pytest.raises(FakeSparkError) as raised:
        raise_config_error(error, "stream_config_plan", PlanError, " (a note)")
    assert raised.value is error
