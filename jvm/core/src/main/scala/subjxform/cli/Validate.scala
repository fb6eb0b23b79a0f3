package subjxform.cli

import java.io.PrintStream

import subjxform.core.{ConfSyntax, ConfSyntaxException, ConfValue, GoQuote, InvalidStreamConfigException,
  MappingProblem, MappingTable, StreamConfig, StreamConfigJson}
import subjxform.core.ConfValue._

/**
 * `subjxform validate FILE`: checks a mappings block or a JetStream stream config the way nats-server
 * does, and prints one line per problem (`FILE:LINE: error: rule "...", destination "...": <nats-server's
 * message>`), then a summary. Exit code 0 when nats-server would accept it (warnings allowed), 1 when
 * it would not, 2 for usage errors and unreadable files (those are decided by [[Main]]).
 *
 * What the file is, unless `--mappings` / `--stream` says so:
 *  - a stream config: the `config` of `nats stream info --json`, or an object with stream fields
 *    (`subjects`, `sources`, `mirror`, `subject_transform`, `republish`, ...) that are not shaped like
 *    mapping destinations;
 *  - a nats-server config file: it has top-level `mappings` (or `maps`) or `accounts` (each account's
 *    `mappings` is checked), or other server settings (`port`, `jetstream`, ...);
 *  - otherwise the content of one `mappings { }` block (with or without `mappings` around it).
 */
object Validate {
  sealed trait Kind
  case object Mappings extends Kind
  case object Stream extends Kind

  val Usage = "usage: subjxform validate [--mappings | --stream] FILE   (FILE '-' reads stdin)"

  /** Fields only a stream config has (nats-server's StreamConfig JSON names). */
  private val StreamFields = Set("subjects", "sources", "mirror", "subject_transform", "republish", "retention",
    "storage", "num_replicas", "no_ack", "max_msgs", "max_bytes", "max_age", "discard", "duplicate_window",
    "max_consumers", "max_msg_size", "allow_direct", "deny_delete", "deny_purge")

  /** Top-level keys of a nats-server config file (lower case, as nats-server compares them). */
  private val ServerKeys = Set("mappings", "maps", "accounts", "port", "listen", "host", "net", "server_name",
    "jetstream", "cluster", "gateway", "leafnodes", "websocket", "mqtt", "http", "http_port", "monitor_port",
    "authorization", "system_account", "operator", "resolver", "debug", "trace", "logfile", "pid_file")

  /** Checks `text` (read from `name`, used in the messages); returns the exit code. */
  def run(text: String, name: String, forced: Option[Kind], out: PrintStream): Int = {
    val doc =
      try ConfSyntax.parseDocument(text)
      catch {
        case e: ConfSyntaxException =>
          out.println(s"$name: error: ${e.getMessage}")
          return 1
      }
    forced.getOrElse(kindOf(doc)) match {
      case Stream => stream(doc, name, out)
      case Mappings => mappings(doc, name, out)
    }
  }

  /** Whether a value reads as a mapping's destination(s): a subject, or `{destination, weight}` entries. */
  private def mappingShaped(v: ConfValue): Boolean = v match {
    case _: Str => true
    case o: Obj => o.entries.exists { case (k, _) => Set("dest", "destination", "weight", "cluster")(k.toLowerCase) }
    case Arr(items, _) => items.nonEmpty && items.forall(i => i.isInstanceOf[Obj] && mappingShaped(i))
    case _ => false
  }

  def kindOf(doc: Obj): Kind = {
    val streamInfo = doc.get("config").exists(_.isInstanceOf[Obj]) && doc.get("name").isEmpty
    val named = doc.get("name").exists(_.isInstanceOf[Str])
    val streamFields = doc.entries.filter { case (k, _) => StreamFields(k) }
    if (streamInfo || (named && streamFields.nonEmpty) || streamFields.exists { case (_, v) => !mappingShaped(v) }) Stream
    else Mappings
  }

  private def isMappingsKey(k: String): Boolean = k.equalsIgnoreCase("mappings") || k.equalsIgnoreCase("maps")

  /**
   * The mappings blocks of the document with their place in it (`mappings`, `accounts.A.mappings`), or
   * the document itself (labelled "") when it is one block's content.
   */
  private def blocks(doc: Obj): Seq[(String, Obj)] = {
    val isServerConfig = doc.entries.exists { case (k, _) => ServerKeys(k.toLowerCase) }
    if (!isServerConfig) return Seq("" -> doc)
    val top = doc.entries.collect { case (k, block: Obj) if isMappingsKey(k) => k -> block }
    val inAccounts = for {
      (accountsKey, accounts: Obj) <- doc.entries if accountsKey.equalsIgnoreCase("accounts")
      (account, settings: Obj) <- accounts.entries
      (k, block: Obj) <- settings.entries if isMappingsKey(k)
    } yield s"$accountsKey.$account.$k" -> block
    top ++ inAccounts
  }

  private def mappings(doc: Obj, name: String, out: PrintStream): Int = {
    val found = blocks(doc)
    if (found.isEmpty) {
      out.println(s"$name: error: no mappings block (a top-level `mappings { }` or an account's `mappings`)")
      return 1
    }
    // Where a problem is needs saying only when the file has more than its top-level block.
    val labelled = found.size > 1 || found.exists { case (label, _) => label.startsWith("accounts") }
    var errors = 0
    var warnings = 0
    for ((label, block) <- found) {
      val problems = MappingTable.validate(block).map(p => (lineOf(block, p), p)).sortBy(_._1.getOrElse(0))
      for ((at, problem) <- problems) {
        if (problem.isError) errors += 1 else warnings += 1
        val where = at.map(l => s"$name:$l").getOrElse(name)
        out.println(s"$where: ${problem.severity}: ${if (labelled) label + ": " else ""}$problem")
      }
    }
    val rules = found.map(_._2.entries.size).sum
    val counted = plural(rules, "mapping") + (if (labelled) s" in ${found.map(_._1).mkString(", ")}" else "")
    val warned = if (warnings > 0) s", ${plural(warnings, "warning")}" else ""
    if (errors > 0) out.println(s"$name: ${plural(errors, "error")}$warned ($counted): nats-server would not accept it")
    else out.println(s"OK: $counted$warned")
    if (errors > 0) 1 else 0
  }

  /** The line of the rule's value (a rule written twice: its last value, the one nats-server keeps). */
  private def lineOf(block: Obj, p: MappingProblem): Option[Int] =
    Option(p.rule).flatMap(r => block.entries.reverseIterator.collectFirst { case (k, v) if k == r => v.line })

  private def stream(doc: Obj, name: String, out: PrintStream): Int =
    try {
      val cfg = StreamConfigJson.fromConf(doc)
      val plan = StreamConfig.plan(cfg)
      // nats-server accepts these configs but its source consumer fails later: worth knowing.
      val inactive = plan.origins.flatMap(_.inactive)
      inactive.foreach(w => out.println(s"$name: warning: $w"))
      val parts = Seq(
        Some(plural(plan.subjects.size, "subject")).filter(_ => plan.subjects.nonEmpty || plan.origins.isEmpty),
        cfg.mirror.map(_ => "mirror"),
        Some(plural(cfg.sources.size, "source")).filter(_ => cfg.sources.nonEmpty),
        plan.ingress.map(t => s"subject_transform ${GoQuote(t.src)} -> ${GoQuote(t.dest)}"),
        plan.republish.map(t => s"republish ${GoQuote(t.src)} -> ${GoQuote(t.dest)}")).flatten
      val warned = if (inactive.nonEmpty) s", ${plural(inactive.size, "warning")}" else ""
      out.println(s"OK: stream ${GoQuote(cfg.name)} (${parts.mkString(", ")})$warned")
      0
    } catch {
      case e: InvalidStreamConfigException =>
        // nats-server stops at the first failing check, so there is one error to give.
        out.println(s"$name: error: ${e.getMessage}")
        out.println(s"$name: 1 error (stream config): nats-server would reject it")
        1
    }

  private def plural(n: Int, word: String): String = s"$n $word${if (n == 1) "" else "s"}"
}
