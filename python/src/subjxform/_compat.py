"""Where PySpark differs between the Spark lines subjxform supports (3.5 and 4.x): one place."""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, NoReturn, TypeGuard

if TYPE_CHECKING:  # annotations only: pyspark is imported where a Column can exist
    from pyspark.sql import Column

# subjxform's one error condition, as Spark words it (subjxform.spark.Errors).
_INVALID_VALUE = re.compile(
    r"\[(?P<condition>INVALID_PARAMETER_VALUE\.PATTERN)\] The value of parameter\(s\) (?P<parameter>.+?) in "
    # After the value: Spark's closing '.', then what a Connect 3.5 client's message may carry on: the
    # query's plan (";\n'Project [...") or the server's stack.
    r"(?P<functionName>`[^`]*`) is invalid: (?P<value>.*?)\.?(?:;\n.*|\n\nJVM stacktrace:.*)?$",
    re.S,
)


def _from_message(error) -> dict:
    """What a Spark Connect 3.5 client has of an error: its message only (no condition, no parameters).
    Read back from subjxform's own error's wording; nothing for any other error."""
    found = _INVALID_VALUE.match(str(error))
    return found.groupdict() if found else {}


def error_condition(error) -> str | None:
    """A PySpark error's condition (PySpark 4 calls it so; 3.5 only has its older name, error class)."""
    condition = getattr(error, "getCondition", None) or error.getErrorClass
    return condition() or _from_message(error).get("condition")


def error_parameters(error) -> dict:
    """A PySpark error's message parameters (for subjxform's error, also from a Spark Connect 3.5 client)."""
    parameters = error.getMessageParameters()
    if parameters:
        return dict(parameters)
    return {k: v for k, v in _from_message(error).items() if k != "condition"}


def raise_config_error(error, function: str, config_error: type[Exception], note: str = "") -> NoReturn:
    """Raises a PySpark error of the plan SQL function ``function`` as ``config_error``, when it is subjxform's
    refusal of the config: Spark's INVALID_PARAMETER_VALUE carries the field and nats-server's words as its
    ``value``, kept (``note`` after them). Any other error is raised as it is."""
    params = error_parameters(error)
    if error_condition(error) != "INVALID_PARAMETER_VALUE.PATTERN" or params.get("functionName") != f"`{function}`":
        raise error
    raise config_error(params["value"] + note) from error


def is_column(value) -> TypeGuard[Column]:
    """A Column, classic or Spark Connect. Since PySpark 4.0 both are pyspark.sql.Column; in 3.5 a Spark
    Connect Column is its own class (looked up only where a Connect client is already loaded)."""
    from pyspark.sql import Column

    if isinstance(value, Column):
        return True
    connect = sys.modules.get("pyspark.sql.connect.column")
    return connect is not None and isinstance(value, connect.Column)
