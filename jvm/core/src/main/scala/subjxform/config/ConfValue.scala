package subjxform.config

/**
 * A value of nats-server's configuration language, as its parser leaves it. Strings remember whether
 * they were quoted: nats-server cuts an unquoted `{{...}}` at its first `}`, and we refuse that.
 */
sealed trait ConfValue { def line: Int }

object ConfValue {
  final case class Str(value: String, quoted: Boolean, line: Int) extends ConfValue
  final case class Integer(value: Long, line: Int) extends ConfValue
  final case class Decimal(value: Double, line: Int) extends ConfValue
  final case class Bool(value: Boolean, line: Int) extends ConfValue
  final case class DateTime(value: String, line: Int) extends ConfValue
  final case class Null(line: Int) extends ConfValue // JSON's null only
  final case class Arr(items: Vector[ConfValue], line: Int) extends ConfValue

  /** Keys in written order; a repeated key replaces the earlier value, as in nats-server's Go map. */
  final case class Obj(
      entries: Vector[(String, ConfValue)], repeatedKeys: Vector[String], line: Int) extends ConfValue {
    def get(key: String): Option[ConfValue] = entries.collectFirst { case (k, v) if k == key => v }

    /**
     * Keys of entries that a `$name` reference used: variables, which nats-server skips where it reads
     * the block's entries as settings (its token's IsUsedVariable). Not part of the value's equality.
     */
    var usedVariables: Set[String] = Set.empty
  }

  /**
   * Go's `%v` of the value nats-server would hold, for messages that quote it; lists and maps nested
   * more than [[GoTextDepth]] deep are shown as `...` (a message need not repeat a hostile text).
   */
  def goText(v: ConfValue): String = goText(v, 0)

  final val GoTextDepth = 8

  private def goText(v: ConfValue, depth: Int): String = v match {
    case Str(s, _, _) => s
    case Integer(n, _) => n.toString
    case Decimal(d, _) =>
      if (d == math.rint(d) && math.abs(d) < 1e21) java.math.BigDecimal.valueOf(d).toBigInteger.toString
      else d.toString.replace("E", "e+").replace("e+-", "e-")
    case Bool(b, _) => b.toString
    case DateTime(s, _) => s
    case Null(_) => "<nil>"
    case _ if depth >= GoTextDepth => "..."
    case Arr(items, _) => items.map(goText(_, depth + 1)).mkString("[", " ", "]")
    case Obj(entries, _, _) =>
      entries.sortBy(_._1).map { case (k, x) => s"$k:${goText(x, depth + 1)}" }.mkString("map[", " ", "]")
  }
}

/** A text that neither nats-server's configuration parser nor a JSON parser accepts. */
final class ConfSyntaxException(message: String) extends IllegalArgumentException(message)
