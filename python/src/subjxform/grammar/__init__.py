"""The grammar: jvm/core's engine and config readers ported to plain Python (no pyspark), file by file after
their Scala twins, with the jar's acceptance, values and error texts: how nats-server reads a subject, a
transform, a mapping table, a stream source's transforms, its configuration syntax and a consumer group's
config, for every release in the table. Every Python path stands on it: the no-jar builders (``portable``),
the jar path's argument checks, the command line (``sql``, ``group``) and the reports. The table of modules
and their Scala twins is in docs/concepts/architecture.md; tests/test_layers.py keeps the engine's modules
from reading the config readers', as on the JVM."""
