"""Where PySpark differs between the Spark lines subjxform supports (3.5 and 4.x): one place."""

from __future__ import annotations


def error_condition(error) -> str | None:
    """A PySpark error's condition (PySpark 4 calls it so; 3.5 only has its older name, error class)."""
    condition = getattr(error, "getCondition", None) or getattr(error, "getErrorClass")
    return condition()
