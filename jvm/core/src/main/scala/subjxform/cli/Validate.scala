package subjxform.cli

import java.io.PrintStream

import subjxform.config.{
  Accounts, ConfFile, ConfigProblem, ConfSyntax, ConfSyntaxException, ConfValue, GoBytes, InvalidStreamConfigException,
  MappingProblem, MappingTable, StreamConfig, StreamConfigJson, StreamPlan
}
import subjxform.config.ConfValue._
import subjxform.engine.{GoQuote, InvalidTransformException, ServerVersion, SubjectTransform}

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

  val Usage: String =
    """usage: subjxform validate [--mappings | --stream] [--server-version V [--upgrade-to W]] FILE...
      |  Checks each FILE as nats-server does and prints one line per problem, in nats-server's words. A FILE
      |  is a mappings block (with or without "mappings { }" around it, or JSON), a whole nats-server config
      |  (its mappings, accounts, imports and exports) or a stream config (nats stream info --json);
      |  FILE '-' reads standard input.
      |  --mappings            read FILE as a mappings block or a server config, whatever it looks like
      |  --stream              read FILE as a stream config
      |  --server-version V    check as nats-server line V does (2.10, 2.11, 2.12, 2.14, 2.15: the release
      |                        measured for it) or as release V does (like 2.14.0 or v2.14.0); default the newest
      |  --upgrade-to W        then list the rules that become invalid or valid on W (a line or a release),
      |                        and those whose destination behaves otherwise there
      |  Exit code 0 valid (on V), 1 problems, 2 a usage error or an unreadable FILE.""".stripMargin

  /** Fields only a stream config has (nats-server's StreamConfig JSON names). */
  private val StreamFields = Set("subjects", "sources", "mirror", "subject_transform", "republish", "retention",
    "storage", "num_replicas", "no_ack", "max_msgs", "max_bytes", "max_age", "discard", "duplicate_window",
    "max_consumers", "max_msg_size", "allow_direct", "deny_delete", "deny_purge")

  /** Top-level keys of a nats-server config file (lower case, as nats-server compares them). */
  private val ServerKeys = Set("mappings", "maps", "accounts", "port", "listen", "host", "net", "server_name",
    "jetstream", "cluster", "gateway", "leafnodes", "websocket", "mqtt", "http", "http_port", "monitor_port",
    "authorization", "system_account", "operator", "resolver", "debug", "trace", "logfile", "pid_file")

  /**
   * Checks `text` (read from `name`, used in the messages and as the folder `include` paths are relative
   * to; `$NAME` references the config does not define come from `env`); returns the exit code.
   */
  def run(text: String, name: String, forced: Option[Kind], out: PrintStream,
      env: String => Option[String] = sys.env.get, version: ServerVersion = ServerVersion.Newest): Int = {
    version.note.foreach(n => out.println(s"$name: note: $n"))
    if (!forced.contains(Stream) && Accounts.looksLikeJwts(text)) return accountJwts(text, name, out, version)
    val (kind, doc, file) =
      try read(text, name, forced, env)
      catch {
        case e: ConfSyntaxException =>
          // nats-server's words, but the NUL its lexer shows for the end of the text is written visibly
          out.println(s"$name: error: ${e.getMessage.replace("\u0000", "\\x00")}")
          return 1
      }
    kind match {
      case Stream => stream(doc, name, out, version)
      case Mappings if isServerConfig(doc) => serverConfig(file, name, out, version)
      case Mappings => mappings(file, name, out, version)
    }
  }

  /**
   * The document and what it is. A stream config written as JSON is read as JSON, as nats reads it (Go's
   * `encoding/json`: `null`, `1e9`, unicode escapes); anything else as nats-server reads a config file, JSON
   * or not (`file`: null for a JSON stream config).
   */
  private def read(
      text: String, name: String, forced: Option[Kind], env: String => Option[String]): (Kind, Obj, ConfFile) = {
    if (!forced.contains(Mappings))
      ConfSyntax.jsonObject(text).filter(o => forced.contains(Stream) || kindOf(o) == Stream) match {
        case Some(o) => return (Stream, o, null)
        case None =>
      }
    val file = ConfSyntax.parseText(text, name, env)
    (forced.getOrElse(kindOf(file.root)), file.root, file)
  }

  /** Whether a value reads as a mapping's destination(s): a subject, or `{destination, weight}` entries. */
  private def mappingShaped(v: ConfValue): Boolean = v match {
    case _: Str => true
    case o: Obj => o.entries.exists { case (k, _) => Set("dest", "destination", "weight", "cluster")(GoBytes.lower(k)) }
    case Arr(items, _) => items.nonEmpty && items.forall(i => i.isInstanceOf[Obj] && mappingShaped(i))
    case _ => false
  }

  def kindOf(doc: Obj): Kind = {
    val streamInfo = doc.get("config").exists(_.isInstanceOf[Obj]) && doc.get("name").isEmpty
    val named = doc.get("name").exists(_.isInstanceOf[Str])
    val streamFields = doc.entries.filter { case (k, _) => StreamFields(k) }
    if (streamInfo || (named && streamFields.nonEmpty) || streamFields.exists { case (_, v) => !mappingShaped(v) })
      Stream
    else Mappings
  }

  private def isMappingsKey(k: String): Boolean = Set("mappings", "maps")(GoBytes.lower(k))

  /** A nats-server config file, rather than one mappings block's content. */
  private def isServerConfig(doc: Obj): Boolean =
    doc.entries.exists { case (k, _) => ServerKeys(GoBytes.lower(k)) || GoBytes.lower(k) == "resolver_preload" } &&
      !isWrappedBlock(doc)

  /** `mappings { ... }` alone: one block pasted with its key, not a server config. */
  private def isWrappedBlock(doc: Obj): Boolean = doc.entries match {
    case Vector((k, _: Obj)) => isMappingsKey(k)
    case _ => false
  }

  /** One mappings block's content (not a server config): every problem of its rules. */
  private def mappings(file: ConfFile, name: String, out: PrintStream, version: ServerVersion): Int = {
    val block = soleBlock(file.root)
    val problems =
      MappingTable.validate(block, version).map(p => ConfigProblem(valueOf(block, p), "", p.severity, p.toString))
    report(file, name, problems, plural(block.entries.size, "mapping"), out)
  }

  /**
   * A whole server config, as `nats-server -t` checks what decides where a message goes: the top-level
   * mappings, each account's mappings, exports and imports (or, in operator mode, the account JWTs of
   * `resolver_preload`), `include`s and variables resolved as nats-server resolves them.
   */
  private def serverConfig(file: ConfFile, name: String, out: PrintStream, version: ServerVersion): Int = {
    val doc = file.root
    val top = doc.entries.collect { case (k, block: Obj) if isMappingsKey(k) => k -> block }
    val topProblems = for ((label, block) <- top; p <- MappingTable.validate(block, version))
      yield ConfigProblem(valueOf(block, p), label, p.severity, p.toString)
    val accounts =
      try Accounts.fromDocument(doc, version)
      catch {
        case e: ConfSyntaxException =>
          out.println(s"$name: error: ${e.getMessage}")
          return 1
      }
    val blocks = top.map(_._1) ++ accounts.accounts.filter(_.mappings.isDefined).map(Accounts.mappingsField)
    val rules = top.map(_._2.entries.size).sum + accounts.accounts.flatMap(_.mappings).map(_.entries.size).sum
    val imports = accounts.accounts.map(_.imports.size).sum
    val exports = accounts.accounts.map(_.exports.size).sum
    val counted = plural(rules, "mapping") + (if (blocks.nonEmpty) s" in ${blocks.mkString(", ")}" else "") +
      (if (imports + exports > 0) s"; ${plural(accounts.accounts.size, "account")}, ${plural(exports, "export")}, " +
         s"${plural(imports, "import")}"
       else "") +
      (if (accounts.jwtMode) " (account JWTs)" else "")
    report(file, name, topProblems ++ accounts.problems, counted, out)
  }

  /** Account JWTs (or their claims): what nats-server loads from them. */
  private def accountJwts(text: String, name: String, out: PrintStream, version: ServerVersion): Int = {
    val plan =
      try Accounts.plan(text, version)
      catch {
        case e: ConfSyntaxException =>
          out.println(s"$name: error: ${e.getMessage}")
          return 1
      }
    for (p <- plan.problems) out.println(s"$name: ${p.severity}: ${p.field}: ${p.message}")
    val errors = plan.problems.count(_.isError)
    val warnings = plan.problems.size - errors
    val warned = if (warnings > 0) s", ${plural(warnings, "warning")}" else ""
    val counted = s"${plural(plan.accounts.size, "account JWT")}: ${plural(plan.routes.size, "import")} in effect"
    if (errors > 0) out.println(s"$name: ${plural(errors, "error")}$warned ($counted): nats-server would not load it")
    else out.println(s"OK: $counted$warned")
    if (errors > 0) 1 else 0
  }

  /** Prints the problems, `FILE:LINE: severity: field: message`, in file and line order, then a summary. */
  private def report(
      file: ConfFile, name: String, problems: Seq[ConfigProblem], counted: String, out: PrintStream): Int = {
    val sorted = problems.map(p => (file.fileOf(p.at), p.at.line, p)).sortBy { case (f, l, _) => (f != name, f, l) }
    for ((f, l, p) <- sorted)
      out.println(s"$f:$l: ${p.severity}: ${if (p.field.nonEmpty) p.field + ": " else ""}${p.message}")
    val errors = problems.count(_.isError)
    val warnings = problems.size - errors
    val warned = if (warnings > 0) s", ${plural(warnings, "warning")}" else ""
    if (errors > 0) out.println(s"$name: ${plural(errors, "error")}$warned ($counted): nats-server would not accept it")
    else out.println(s"OK: $counted$warned")
    if (errors > 0) 1 else 0
  }

  /** The rule's value (a rule written twice: its last value, the one nats-server keeps), else the block. */
  private def valueOf(block: Obj, p: MappingProblem): ConfValue =
    Option(p.rule).flatMap(r => block.entries.reverseIterator.collectFirst { case (k, v) if k == r => v }).getOrElse(
      block)

  private def stream(doc: Obj, name: String, out: PrintStream, version: ServerVersion): Int =
    try {
      val cfg = StreamConfigJson.fromConf(doc)
      val plan = StreamConfig.plan(cfg, version)
      // nats-server accepts these configs but its source consumer fails later: worth knowing.
      val inactive = plan.origins.flatMap(_.inactive)
      val hazard = StreamConfig.invalidRepublish(plan, version).filterNot(_ => version.suppressesInvalidRepublish)
      val warnings = inactive ++ hazard
      warnings.foreach(w => out.println(s"$name: warning: $w"))
      val parts = Seq(
        Some(plural(plan.subjects.size, "subject")).filter(_ => plan.subjects.nonEmpty || plan.origins.isEmpty),
        cfg.mirror.map(_ => "mirror"),
        Some(plural(cfg.sources.size, "source")).filter(_ => cfg.sources.nonEmpty),
        plan.ingress.map(t => s"subject_transform ${GoQuote(t.src)} -> ${GoQuote(t.dest)}"),
        plan.republish.map(t => s"republish ${GoQuote(t.src)} -> ${GoQuote(t.dest)}")).flatten
      val warned = if (warnings.nonEmpty) s", ${plural(warnings.size, "warning")}" else ""
      out.println(s"OK: stream ${GoQuote(cfg.name)} (${parts.mkString(", ")})$warned")
      0
    } catch {
      case e: InvalidStreamConfigException =>
        // nats-server stops at the first failing check, so there is one error to give.
        out.println(s"$name: error: ${e.getMessage}")
        out.println(s"$name: 1 error (stream config): nats-server would reject it")
        1
    }

  /** The content of a lone `mappings { }` block pasted with its key, else the document itself. */
  private def soleBlock(root: Obj): Obj = root.entries match {
    case Vector((k, inner: Obj)) if isMappingsKey(k) => inner
    case _ => root
  }

  // ---------------------------------------------------------------------------------------------
  // --upgrade-to: what changes from one server line to another, for a config without traffic

  /** One rule destination, or one other checked entry, as the two lines see it. */
  private final case class Change(file: String, line: Int, what: String, change: String, before: String, after: String)

  /**
   * Checks `text` on line `from` (printed as [[run]] prints it: the exit code is that check's), then
   * prints `to`'s note if it has one (a release not measured) and a table of what changes on line `to`: entries that become invalid or valid (or keep an error
   * whose text changes), and rule destinations valid on both that build another subject (naming the
   * destination tokens that do). Every mapping destination (top-level, per account) is compared; for a
   * stream config, the verdict.
   */
  def upgrade(text: String, name: String, forced: Option[Kind], out: PrintStream, env: String => Option[String],
      from: ServerVersion, to: ServerVersion): Int = {
    val code = run(text, name, forced, out, env, from)
    if (code == 2) return code
    val changes = changesBetween(text, name, forced, env, from, to)
    out.println()
    to.note.foreach(n => out.println(s"$name: note: $n"))
    out.println(s"Upgrade from nats-server $from to $to: " +
      (if (changes.isEmpty) "no rule changes" else plural(changes.size, "change")))
    if (changes.nonEmpty) {
      val header = Seq("WHERE", "RULE / ENTRY", "CHANGE", s"ON $from", s"ON $to")
      val rows = changes.map(c => Seq(s"${c.file}:${c.line}", c.what, c.change, c.before, c.after))
      val widths = header.indices.map(i => (header +: rows).map(_(i).length).max)
      for (r <- header +: rows) out.println(r.zip(widths).map { case (v, w) => v.padTo(w, ' ') }.mkString("  ").trim)
      val counts = changes.groupBy(_.change).toSeq.sortBy(_._1).map { case (k, v) => s"${v.size} $k" }
      out.println(counts.mkString(", "))
    }
    code
  }

  private def changesBetween(text: String, name: String, forced: Option[Kind], env: String => Option[String],
      from: ServerVersion, to: ServerVersion): Seq[Change] = {
    if (!forced.contains(Stream) && Accounts.looksLikeJwts(text)) {
      def errors(v: ServerVersion) = Accounts.plan(text, v).problems.filter(_.isError).map(p => (p.field, p.message))
      return verdictChanges(errors(from), errors(to)).map { case (field, c, b, a) => Change(name, 0, field, c, b, a) }
    }
    val (kind, doc, file) =
      try read(text, name, forced, env)
      catch { case _: ConfSyntaxException => return Nil }
    kind match {
      case Stream =>
        def plan(v: ServerVersion): Either[String, StreamPlan] =
          try Right(StreamConfig.plan(StreamConfigJson.fromConf(doc), v))
          catch { case e: InvalidStreamConfigException => Left(e.getMessage) }
        def verdict(v: ServerVersion): Seq[(String, String)] = plan(v).left.toSeq.map(("stream", _))
        // A republish that builds white space: sent on one release, suppressed on the other.
        val republish = (plan(from), plan(to)) match {
          case (Right(a), Right(b)) if from.suppressesInvalidRepublish != to.suppressesInvalidRepublish =>
            (StreamConfig.invalidRepublish(a, from), StreamConfig.invalidRepublish(b, to)) match {
              case (Some(_), Some(_)) =>
                def how(v: ServerVersion) = if (v.suppressesInvalidRepublish)
                  "suppresses a message whose subject is invalid"
                else "sends a message whose subject is invalid as built (a hazard)"
                Some(Change(name, doc.line,
                    s"republish ${GoQuote(a.republish.get.src)} -> ${GoQuote(a.republish.get.dest)}",
                    "deliver otherwise", how(from), how(to)))
              case _ => None
            }
          case _ => None
        }
        verdictChanges(verdict(from), verdict(to)).map { case (w, c, b, a) =>
          Change(name, doc.line, w, c, b, a)
        } ++ republish
      case Mappings =>
        val blocks: Seq[Obj] =
          if (isServerConfig(doc)) {
            doc.entries.collect {
              case (k, b: Obj) if isMappingsKey(k) => b
            } ++
              (try Accounts.fromDocument(doc, from).accounts.flatMap(_.mappings)
              catch { case _: ConfSyntaxException => Nil })
          } else Seq(soleBlock(doc))
        val mappingChanges = blocks.flatMap(b => destinationChanges(file, b, from, to))
        // Imports, exports and the rest: errors of the whole config that differ (mapping errors are above).
        val others =
          if (!isServerConfig(doc)) Nil
          else {
            def errors(v: ServerVersion) =
              (try Accounts.fromDocument(doc, v).problems
              catch { case _: ConfSyntaxException => Nil })
                .filter(p => p.isError && !p.field.endsWith("mappings") && !p.field.endsWith("maps")).map(p =>
                  (s"${p.at.line}\u0000${p.field}", p.message))
            verdictChanges(errors(from), errors(to)).map { case (k, c, b, a) =>
              val Array(line, field) = k.split("\u0000", 2)
              Change(name, line.toInt, field, c, b, a)
            }
          }
        (mappingChanges ++ others).sortBy(c => (c.file, c.line))
    }
  }

  /** Entries (key -> error) of two checks: which become invalid, valid, or keep an error with another text. */
  private def verdictChanges(
      before: Seq[(String, String)], after: Seq[(String, String)]): Seq[(String, String, String, String)] = {
    val b = before.groupBy(_._1).map { case (k, v) => k -> v.map(_._2).mkString("; ") }
    val a = after.groupBy(_._1).map { case (k, v) => k -> v.map(_._2).mkString("; ") }
    (b.keySet ++ a.keySet).toSeq.sorted.flatMap { k =>
      (b.get(k), a.get(k)) match {
        case (None, Some(e)) => Some((k, "become invalid", "valid", e))
        case (Some(e), None) => Some((k, "become valid", e, "valid"))
        case (Some(x), Some(y)) if x != y => Some((k, "change their error", x, y))
        case _ => None
      }
    }
  }

  /** Every destination of a mappings block, compiled on both lines. */
  private def destinationChanges(file: ConfFile, block: Obj, from: ServerVersion, to: ServerVersion): Seq[Change] = {
    def destinations(v: ConfValue): Seq[(String, ConfValue)] = v match {
      case Str(d, _, _) => Seq(d -> v)
      case o: Obj => o.entries.collectFirst {
          case (k, Str(d, _, _)) if Set("destination", "dest")(GoBytes.lower(k)) => d -> o
        }.toSeq
      case Arr(items, _) => items.flatMap(destinations)
      case _ => Nil
    }
    // The last value of a rule written twice is the one nats-server keeps.
    val rules = block.entries.groupBy(_._1).map { case (k, vs) => k -> vs.last._2 }.toSeq
    rules.flatMap { case (rule, value) =>
      destinations(value).flatMap { case (dest, at) =>
        def compiled(v: ServerVersion): Either[String, SubjectTransform] =
          try Right(SubjectTransform.compile(rule, dest, false, v))
          catch { case e: InvalidTransformException => Left(e.reason) }
        val what = s"${GoQuote(rule)} -> ${GoQuote(dest)}"
        val where = (file.fileOf(at), at.line)
        (compiled(from), compiled(to)) match {
          case (Right(_), Left(e)) => Some(Change(where._1, where._2, what, "become invalid", "valid", e))
          case (Left(e), Right(_)) => Some(Change(where._1, where._2, what, "become valid", e, "valid"))
          case (Left(x), Left(y)) if x != y => Some(Change(where._1, where._2, what, "change their error", x, y))
          case (Right(x), Right(y)) =>
            val tokens = x.tokensBuiltOtherwiseThan(y)
            def how(t: SubjectTransform) =
              if (t.losesMessages) s"the server loses every matching message (it crashes in ${tokens.mkString(", ")})"
              else s"delivers it, building ${tokens.mkString(", ")} as this line does"
            if (tokens.isEmpty) None else Some(Change(where._1, where._2, what, "deliver otherwise", how(x), how(y)))
          case _ => None
        }
      }
    }
  }

  private def plural(n: Int, word: String): String = s"$n $word${if (n == 1) "" else "s"}"
}
