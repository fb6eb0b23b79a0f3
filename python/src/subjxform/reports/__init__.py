"""Reports over a DataFrame of messages: what a mapping table does to real traffic.

Each report is built from the SQL functions (``subject_map_explain``, ``mappings_plan``,
``subject_transform``, ``subject_matches``), so it runs in classic PySpark and under Spark Connect
alike; the counting is done by Spark, and only the small aggregates come back to Python. Each returns a
:class:`Report`: ``df`` (the report's rows as a Spark DataFrame), ``text`` (a readable table),
``facts`` (the findings a test or a script checks: rules that never fire, the skew, ...) and, where a
picture says more than a table, ``chart(path)`` writes a PNG. In a notebook (Jupyter, Databricks, VS Code)
a report that is a cell's last value shows its tables and its chart.

- :func:`rule_coverage`: hits per rule and per destination, rules that never fire, rules shadowed in
  practice by an earlier overlapping rule, subjects no rule takes;
- :func:`config_diff`: two mapping tables over the same traffic with the same seed (or key): changed /
  unchanged / newly dropped / newly mapped, per rule, with an example of each;
- :func:`partition_balance`: min / max / skew per partition and the hottest keys, for the
  ``{{partition(n,...)}}`` destinations of a table or for candidate ``n`` and token choices;
- :func:`canary_check`: observed against configured share per weighted destination (and per cluster),
  with a binomial (Wilson) confidence interval;
- :func:`server_upgrade`: one table on two nats-server lines: rules that become valid or invalid, and per
  rule the messages whose delivered subject changes.

``server_version`` (every report) is the nats-server line whose rules the tables are compiled by.

``cluster`` is the same in every report: the column holding the cluster each message entered (a column
name or a Column), by which cluster-scoped destinations are chosen, as each server chooses them by its
own ``cluster`` name. ``F.lit("east")`` treats every message as entered in cluster ``east``. (In
:func:`subjxform.subject_map` a string is a cluster name: there the argument is one value.)

Each report is a module of its own (``coverage``, ``diff``, ``balance``, ``canary``, ``upgrade``): its query
(Spark's work, small aggregates back), its facts, its text and its chart, apart; ``_render`` shows them all
one way (text, notebook HTML, PNG).
"""

from ._query import mappings_plan
from ._render import Report, Table
from .balance import partition_balance, partition_candidates
from .canary import canary_check, wilson_interval
from .coverage import OUTCOMES, rule_coverage
from .diff import DIFF_CATEGORIES, config_diff
from .upgrade import UPGRADE_CATEGORIES, server_upgrade

__all__ = [
    "Report",
    "Table",
    "mappings_plan",
    "rule_coverage",
    "config_diff",
    "partition_balance",
    "partition_candidates",
    "canary_check",
    "wilson_interval",
    "server_upgrade",
    "OUTCOMES",
    "DIFF_CATEGORIES",
    "UPGRADE_CATEGORIES",
]
