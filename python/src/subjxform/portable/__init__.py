"""subjxform without the jar: the same answers as the jar's SQL functions, from Spark's built-in
functions only, for every form whose transform or filter is a constant."""
