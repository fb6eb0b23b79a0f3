package subjxform.spark.nats

/**
 * A bad option, or what the server said about one (no such stream, credentials refused, nothing listening): the
 * message names the option to change. An IllegalArgumentException, so that PySpark and Spark Connect show it as
 * one, with this message, and never as a Java stack trace.
 */
final class NatsOptionException(val option: String, message: String, cause: Throwable = null)
  extends IllegalArgumentException(s"nats option '$option': $message", cause)

/**
 * What goes wrong while a task reads or publishes: a publish the server refused (its own error), messages that
 * are gone before a query read them, a server that stopped answering. A task that throws it fails, and the
 * job with it, with this message.
 */
final class NatsException(message: String, cause: Throwable = null) extends RuntimeException(message, cause)

private[nats] object NatsErrors {

  /** The innermost message of a chain of causes, with its exception's simple name when it has none. */
  def reason(e: Throwable): String = {
    var inner = e
    while (inner.getCause != null && inner.getCause != inner) inner = inner.getCause
    val own = Option(e.getMessage).getOrElse("")
    val deepest = Option(inner.getMessage).getOrElse(inner.getClass.getSimpleName)
    if (inner eq e) deepest else if (own.contains(deepest)) own else s"$own ($deepest)"
  }
}
