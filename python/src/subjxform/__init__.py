"""subjxform: NATS subject transforms as Spark SQL functions."""
