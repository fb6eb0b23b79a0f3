package subjxform.cli

import java.io.PrintStream

import subjxform.config.{
  Accounts, ConfFile, ConfigProblem, ConfSyntax, ConfSyntaxException, ConfValue, GoBytes, InvalidStreamConfigException,
  MappingLoad, MappingSource, MappingTable, ServerFields, ServerOptions, StreamConfig, StreamConfigJson, StreamPlan
}
import subjxform.config.ConfValue._
import subjxform.engine.{AccountFunctions, GoQuote, InvalidTransformException, ServerVersion, SubjectTransform}

/**
 * `subjxform validate FILE`: checks a mappings block or a JetStream stream config the way nats-server
 * does, and prints one line per problem (`FILE:LINE:COL: error: rule "...", destination "...": <nats-server's
 * message>`), then a summary. Exit code 0 when nats-server would accept it (warnings allowed), 1 when
 * it would not, 2 for usage errors and unreadable files (those are decided by [[Main]]).
 *
 * What the file is, unless `--mappings` / `--stream` says so:
 *  - a stream config: the `config` of `nats stream info --json`, or an object with stream fields
 *    (`subjects`, `sources`, `mirror`, `subject_transform`, `republish`, ...) that are not shaped like
 *    mapping destinations;
 *  - a nats-server config file, as `nats-server -t` reads every file: a top-level key is a server option of
 *    some release (`mappings`, `accounts`, `port`, `max_payload`, ...) or a value is a setting; its accounts
 *    ([[Accounts]]), its other blocks and the files they name ([[ServerOptions]]) are checked as the release
 *    reads them;
 *  - the content of one `mappings { }` block (with or without `mappings` around it) when something in it reads
 *    as a mapping and nothing as a server config; a file where nothing reads as either is read as a server
 *    config, with a note ([[reading]]).
 */
object Validate {
  sealed trait Kind
  case object Mappings extends Kind
  case object Stream extends Kind

  val Usage: String =
    """usage: subjxform validate [--mappings | --stream] [--server-version V [--upgrade-to W]] [--allow-crashes]
      |                          [--no-file-checks] [--nats-server PATH] FILE...
      |  Checks each FILE as nats-server does and prints one line per problem, in nats-server's words, at the
      |  FILE:LINE:COL nats-server -t gives it, then the release checked and what was read. A FILE is a
      |  mappings block (with or without "mappings { }" around it, or JSON), a whole nats-server config (its
      |  mappings, accounts, imports and exports) or a stream config (nats stream info --json); FILE '-' reads
      |  standard input.
      |  --mappings            read FILE as a mappings block (or a server config when a top-level key is a
      |                        server option), whatever else it looks like
      |  --stream              read FILE as a stream config
      |  --server-version V    check as nats-server line V does (2.10, 2.11, 2.12, 2.14, 2.15: the release
      |                        measured for it) or as release V does (like 2.14.0 or v2.14.0); default the newest
      |  --upgrade-to W        then list the rules that become invalid or valid on W (a line or a release),
      |                        an account JWT's rules W loads or leaves out of the account (its server
      |                        loads a JWT rule by rule), and those whose destination behaves otherwise there
      |  --allow-crashes       exit 0 for a mapping on which the release's server process exits (2.10 and
      |                        2.11 on {{partition(0,...)}}): it is still reported, as a crash
      |  --no-file-checks      leave the files a server config names alone (TLS certificates, keys and CAs,
      |                        operator JWTs, the resolver's dir), for a config checked away from the machine
      |                        it runs on; otherwise they are opened as nats-server opens them, a relative path
      |                        from the working directory
      |  --nats-server PATH    also run that nats-server binary's -t on each FILE and show its verdict beside
      |                        this one, with a warning where they differ (V defaults to its release)
      |  Exit code 0 valid (on V), 1 problems (a crash of V's or W's server included, or a refusal of the
      |  --nats-server binary), 2 a usage error, an unreadable FILE or a binary that cannot be run.""".stripMargin

  /** Fields only a stream config has (nats-server's StreamConfig JSON names). */
  private val StreamFields = Set("subjects", "sources", "mirror", "subject_transform", "republish", "retention",
    "storage", "num_replicas", "no_ack", "max_msgs", "max_bytes", "max_age", "discard", "duplicate_window",
    "max_consumers", "max_msg_size", "allow_direct", "deny_delete", "deny_purge")

  /** Top-level keys of a nats-server config file, on any line (lower case, as nats-server compares them). */
  private val ServerKeys = ServerFields.anyLine("top")

  /**
   * Checks `text` (read from `name`, used in the messages and as the folder `include` paths are relative
   * to; `$NAME` references the config does not define come from `env`); returns the exit code. `okLead`
   * leads the summary line of a valid file (its name, when several files are checked).
   */
  def run(text: String, name: String, forced: Option[Kind], out: PrintStream,
      env: String => Option[String] = sys.env.get, version: ServerVersion = ServerVersion.Newest,
      allowCrashes: Boolean = false, readFiles: Boolean = true, okLead: String = ""): Int = {
    version.note.foreach(n => out.println(s"$name: note: $n"))
    val verdict = Verdict(name, version, allowCrashes, out, readFiles, okLead)
    if (!forced.contains(Stream) && Accounts.looksLikeJwts(text)) return accountJwts(text, verdict)
    val (kind, doc, file) =
      try read(text, name, forced, env)
      catch {
        case e: ConfSyntaxException =>
          // nats-server's words, but the NUL its lexer shows for the end of the text is written visibly
          out.println(s"$name: error: ${e.getMessage.replace("\u0000", "\\x00")}")
          return 1
      }
    kind match {
      case Stream => stream(doc, name, out, version, okLead)
      case Mappings => reading(doc, forced) match {
          case AsServerConfig(why) =>
            why.foreach(w => out.println(s"$name: note: read as a server config: $w"))
            serverConfig(file, verdict)
          case AsMappingsBlock => mappings(file, verdict)
        }
    }
  }

  /**
   * How a check ends: the problems' count and exit code for the release checked (`version`). An error: the
   * server refuses it (1). A crash: the server loads it and its process exits on the first message the
   * destination maps (1 unless `allowCrashes`). Warnings: 0.
   */
  private final case class Verdict(name: String, version: ServerVersion, allowCrashes: Boolean, out: PrintStream,
      readFiles: Boolean = true, okLead: String = "") {

    /** `refusal`: what the release does with it, "would not accept it". */
    def summarise(problems: Seq[ConfigProblem], counted: String, refusal: String): Int = {
      val errors = problems.count(_.isError)
      val crashes = problems.count(_.isCrash)
      val warnings = problems.size - errors - crashes
      val others = Seq(
        Some(plural(crashes, "crash", "crashes")).filter(_ => crashes > 0 && errors > 0),
        Some(plural(warnings, "warning")).filter(_ => warnings > 0)).flatten.map(", " + _).mkString
      if (errors > 0) {
        out.println(s"$name: ${plural(errors, "error")}$others ($counted): nats-server ${version.release} $refusal")
        1
      } else if (crashes > 0 && !allowCrashes) {
        out.println(s"$name: ${plural(crashes, "crash", "crashes")}$others ($counted): nats-server $version " +
          "loads it, and its process exits on the first message such a destination maps (--allow-crashes to " +
          "accept that)")
        1
      } else {
        val allowed = if (crashes > 0) s", ${plural(crashes, "crash", "crashes")} (allowed)" else ""
        valid(s"$counted$allowed$others")
      }
    }

    /** The line of a valid file: the release checked and what was in it (`what`); exit code 0. */
    def valid(what: String): Int = {
      out.println(s"${okLead}${Validate.validFor(version)}: $what")
      0
    }
  }

  /**
   * How a valid file's line starts: the release whose `-t` verdict it is. A line's name stands for the release
   * measured for it ([[ServerVersion.LineReleases]]), which is named with the line it was asked as (or is the
   * default), so the user reads which binary the verdict is that of.
   */
  def validFor(version: ServerVersion): String =
    if (version.name == version.line) s"valid for nats-server ${version.release} (the ${version.line} line's release)"
    else s"valid for nats-server ${version.release}"

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
    val file = ConfSyntax.parseText(text, name, env, collectUnquotedBraces = true)
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

  /** How a file that is no stream config is read: as nats-server reads any file, or as one mappings block. */
  private sealed trait Reading
  private case object AsMappingsBlock extends Reading

  /** `why`: the note printed when the guess was close (nothing in the file read as either). */
  private final case class AsServerConfig(why: Option[String]) extends Reading

  /**
   * A nats-server config file, rather than one mappings block's content, as `nats-server -t` reads every
   * file: it has a server option at its top level (a field some line knows, whatever the file's length), a
   * value no mapping has (a number, a boolean), or an entry holding a block that is no rule's destination
   * (`mapping { a.*: b.$1 }`: a misspelled `mappings`, which nats-server reads as a config's unknown field,
   * and so is it reported). It is read as a mappings block only when nothing in it reads as a server config
   * and something reads as a mapping (a source subject of several tokens, a wildcard or its reference, a function,
   * weighted destinations), or with `--mappings`; otherwise (`foo = bar`, `PASS: $2a$10$...`) as the server reads
   * it, with a note.
   */
  private def reading(doc: Obj, forced: Option[Kind]): Reading =
    if (isWrappedBlock(doc)) AsMappingsBlock
    else if (doc.entries.exists { case (k, v) => ServerKeys(GoBytes.lower(k)) || !mappingValue(v) })
      AsServerConfig(None)
    else if (forced.contains(Mappings) || doc.entries.isEmpty || doc.entries.exists { case (k, v) =>
        readsAsMapping(k, v)
      })
      AsMappingsBlock
    else
      AsServerConfig(Some("nothing in it reads as a mapping (a source subject of several tokens, a wildcard or its " +
          "reference, a function, weighted destinations) and nats-server reads every file so; --mappings reads it as " +
          "a mappings block"))

  private def isServerConfig(doc: Obj, forced: Option[Kind]): Boolean =
    reading(doc, forced).isInstanceOf[AsServerConfig]

  /** A value a mapping rule can hold (a destination, its weighted entries): anything else is a setting. */
  private def mappingValue(v: ConfValue): Boolean = v match {
    case _: Str => true
    case o: Obj => !nestedBlock(o)
    case Arr(items, _) => items.forall(i => i.isInstanceOf[Obj] && mappingShaped(i))
    case _ => false
  }

  /**
   * Something only a mapping has: a source subject of several tokens or with wildcards, a destination with a
   * wildcard's reference (`$1`, `{{wildcard(1)}}`, `*`) or a function, weights. A destination of several tokens
   * alone is no evidence: a variable's value (a bcrypt hash, a URL) has dots too.
   */
  private def readsAsMapping(key: String, v: ConfValue): Boolean = {
    def source(s: String) = s.contains('.') || s.contains('*') || s.contains('>')
    def destination(s: String) = s.contains('*') || s.contains('>') || s.contains("{{") || s.contains("<<") ||
      s.split('.').exists(_.matches("\\$[0-9]+"))
    source(key) || (v match {
      case Str(d, _, _) => destination(d)
      case _: Arr | _: Obj => true
      case _ => false
    })
  }

  /**
   * A block of settings rather than a weighted destination: none of a destination's keys, or a block inside it (a
   * destination holds none: a streaming server's `streaming { cluster: ..., store_limits: {...} }`).
   */
  private def nestedBlock(v: ConfValue): Boolean = v match {
    case o: Obj => o.entries.nonEmpty && (!o.entries.exists { case (k, _) =>
        Set("dest", "destination", "weight", "cluster", "subject")(GoBytes.lower(k))
      } || o.entries.exists(_._2.isInstanceOf[Obj]))
    case _ => false
  }

  /** `mappings { ... }` alone: one block pasted with its key, not a server config. */
  private def isWrappedBlock(doc: Obj): Boolean = doc.entries match {
    case Vector((k, _: Obj)) => isMappingsKey(k)
    case _ => false
  }

  /**
   * One mappings block's content (not a server config): every problem of its rules, as a server loads a
   * block written that way (a JWT's shape: rule by rule; else as a config file's).
   */
  private def mappings(file: ConfFile, verdict: Verdict): Int = {
    val block = soleBlock(file.root)
    // A config's mappings block is the global account's ($G, where {{account-hash()}} is its hash); an
    // account JWT's table names no account here.
    val source = MappingSource.of(block)
    val load = MappingTable.load(block, verdict.version, source,
      if (source == MappingSource.AccountJwt) null else Accounts.GlobalAccount)
    val problems = load.problems.map(p =>
      ConfigProblem(p.placeIn(block, written = !(block eq file.root)), "", p.severity, p.toString))
    val counted = (if (block.entries.isEmpty) "an empty mappings block" else plural(block.entries.size, "mapping")) +
      (if (load.source == MappingSource.AccountJwt) s" (an account JWT's, ${plural(load.applied.size, "loaded")})"
       else "")
    report(file, problems, counted, verdict)
  }

  /**
   * A whole server config, as `nats-server -t` checks what decides where a message goes: the top-level
   * mappings, each account's mappings, exports and imports (or, in operator mode, the account JWTs of
   * `resolver_preload`), `include`s and variables resolved as nats-server resolves them.
   */
  private def serverConfig(file: ConfFile, verdict: Verdict): Int = {
    val (name, out, version) = (verdict.name, verdict.out, verdict.version)
    val doc = file.root
    val top = doc.entries.collect { case (k, block: Obj) if isMappingsKey(k) => k -> block }
    val topProblems =
      for ((label, block) <- top;
        p <- MappingTable.load(block, version, MappingSource.ConfigFile, Accounts.GlobalAccount).problems)
        yield ConfigProblem(p.placeIn(block), label, p.severity, p.toString)
    val accounts =
      try Accounts.fromDocument(doc, version)
      catch {
        case e: ConfSyntaxException =>
          out.println(s"$name: error: ${e.getMessage}")
          return 1
      }
    val options = ServerOptions.check(doc, version, verdict.readFiles)
    val blocks = top.map(_._1) ++ accounts.accounts.filter(_.mappings.isDefined).map(Accounts.mappingsField)
    val rules = top.map(_._2.entries.size).sum + accounts.accounts.flatMap(_.mappings).map(_.entries.size).sum
    val imports = accounts.accounts.map(_.imports.size).sum
    val exports = accounts.accounts.map(_.exports.size).sum
    // Variables (`$name` references used them) are no settings: -t skips them where it reads the options.
    val fields = doc.entries.map(_._1).distinct.count(k => !doc.usedVariables(k))
    val counted = (Seq(
      Some(s"a server config of ${plural(fields, "top-level field")}"),
      Some(plural(accounts.accounts.size, "account") + (if (accounts.jwtMode) " (account JWTs)" else ""))
        .filter(_ => accounts.accounts.nonEmpty),
      Some(plural(rules, "mapping") + (if (blocks.nonEmpty) s" in ${blocks.mkString(", ")}" else ""))
        .filter(_ => blocks.nonEmpty),
      Some(plural(exports, "export")).filter(_ => exports > 0),
      Some(plural(imports, "import")).filter(_ => imports > 0),
      Some(plural(options.tlsBlocks, "TLS block")).filter(_ => options.tlsBlocks > 0),
      Some(s"${plural(options.filesRead, "file")} read").filter(_ => options.filesRead > 0),
      Some("files not read (--no-file-checks)").filter(_ => !verdict.readFiles)).flatten).mkString(", ")
    report(file, topProblems ++ accounts.problems ++ options.problems, counted, verdict)
  }

  /** Account JWTs (or their claims): what nats-server loads from them. */
  private def accountJwts(text: String, verdict: Verdict): Int = {
    val (name, out) = (verdict.name, verdict.out)
    val plan =
      try Accounts.plan(text, verdict.version)
      catch {
        case e: ConfSyntaxException =>
          out.println(s"$name: error: ${e.getMessage}")
          return 1
      }
    for (p <- plan.problems) out.println(s"$name: ${p.severity}: ${p.field}: ${p.message}")
    val counted = s"${plural(plan.accounts.size, "account JWT")}: ${plural(plan.routes.size, "import")} in effect"
    verdict.summarise(plan.problems, counted, "would not load it")
  }

  /**
   * Prints the problems, `FILE:LINE:COL: severity: field: message` (the line and column `nats-server -t` names),
   * in file, line and column order, then a summary.
   */
  private def report(file: ConfFile, found: Seq[ConfigProblem], counted: String, verdict: Verdict): Int = {
    val name = verdict.name
    val problems = file.unquotedBraces.toSeq ++ found
    val sorted = problems.map(p => (file.fileOf(p.at), p)).sortBy { case (f, p) =>
      (f != name, f, p.at.line, p.at.column)
    }
    for ((f, p) <- sorted) {
      val place = if (p.placed) s"$f:${p.at.line}:${p.at.column}" else f
      verdict.out.println(s"$place: ${p.severity}: ${if (p.field.nonEmpty) p.field + ": " else ""}${p.message}")
    }
    verdict.summarise(problems, counted, "would not accept it")
  }

  private def stream(doc: Obj, name: String, out: PrintStream, version: ServerVersion, okLead: String): Int =
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
      out.println(s"$okLead${validFor(version)}: stream ${GoQuote(cfg.name)} (${parts.mkString(", ")})$warned")
      0
    } catch {
      case e: InvalidStreamConfigException =>
        // nats-server stops at the first failing check, so there is one error to give.
        out.println(s"$name: error: ${e.getMessage}")
        out.println(s"$name: 1 error (stream config): nats-server ${version.release} would reject it")
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
   * Checks `text` on release `from` (printed as [[run]] prints it), then prints `to`'s note if it has one (a
   * release not measured) and a table of what changes on release `to`: entries that become invalid or valid
   * (or keep an error whose text changes), an account JWT's rules that `to` loads or leaves out of the
   * account, and rule destinations loaded on both that build another subject (naming the destination tokens
   * that do) or on which one release's server crashes. Every mapping destination (top-level, per account,
   * per account JWT) is compared; for a stream config, the verdict. The exit code is the check's on `from`,
   * and 1 when a destination crashes `to`'s server (unless `allowCrashes`).
   */
  def upgrade(text: String, name: String, forced: Option[Kind], out: PrintStream, env: String => Option[String],
      from: ServerVersion, to: ServerVersion, allowCrashes: Boolean = false, readFiles: Boolean = true,
      okLead: String = ""): Int = {
    val code = run(text, name, forced, out, env, from, allowCrashes, readFiles, okLead)
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
    val crashesAfter = changes.count(_.after.startsWith(CrashPrefix(to)))
    if (crashesAfter > 0) {
      out.println(
        s"$name: nats-server $to's process exits on the first message ${if (crashesAfter == 1) "a " else ""}" +
          s"destination${if (crashesAfter == 1) "" else "s"} above map${if (crashesAfter == 1) "s" else ""}: " +
          (if (allowCrashes) "allowed (--allow-crashes)" else "the upgrade would bring the server down"))
      if (!allowCrashes) return math.max(code, 1)
    }
    code
  }

  /** How [[SubjectTransform.crashWords]] starts for a release: a change whose "after" starts so crashes it. */
  private def CrashPrefix(v: ServerVersion): String = s"nats-server $v's process exits"

  /**
   * Every mappings block of the text, where it is written, the source a server loads it from, and the account it is
   * installed for (whose hash `{{account-hash()}}` is; null: none known, an account JWT's table alone).
   */
  private final case class Block(mappings: Obj, source: MappingSource, where: Option[(String, Int)], account: String)

  private def changesBetween(text: String, name: String, forced: Option[Kind], env: String => Option[String],
      from: ServerVersion, to: ServerVersion): Seq[Change] = {
    if (!forced.contains(Stream) && Accounts.looksLikeJwts(text)) {
      def errors(v: ServerVersion) = Accounts.plan(text, v).problems.filter(_.isError).map(p => (p.field, p.message))
      val refusals = verdictChanges(errors(from), errors(to)).map { case (field, c, b, a) =>
        Change(name, 0, field, c, b, a)
      }
      val blocks = (try Accounts.plan(text, from).accounts
      catch { case _: ConfSyntaxException => Nil }).flatMap(a =>
        a.mappings.map(Block(_, MappingSource.AccountJwt, Some((name, 0)), a.id)))
      return refusals ++ blocks.flatMap(b => ruleChanges(null, b, from, to))
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
        val blocks: Seq[Block] =
          if (isServerConfig(doc, forced)) {
            doc.entries.collect {
              case (k, b: Obj) if isMappingsKey(k) => Block(b, MappingSource.ConfigFile, None, Accounts.GlobalAccount)
            } ++
              (try Accounts.fromDocument(doc, from).accounts.flatMap { a =>
                  val jwt = a.field.startsWith("jwt") || a.field.startsWith("claims")
                  a.mappings.map(m =>
                    if (jwt) Block(m, MappingSource.AccountJwt, Some((file.fileOf(a.at), a.at.line)), a.id)
                    else Block(m, MappingSource.ConfigFile, None, a.id))
                }
              catch { case _: ConfSyntaxException => Nil })
          } else {
            // as [[mappings]] checks it: a config's block is the global account's, a JWT's table names no account
            val block = soleBlock(doc)
            val source = MappingSource.of(block)
            Seq(Block(block, source, None, if (source == MappingSource.AccountJwt) null else Accounts.GlobalAccount))
          }
        val mappingChanges = blocks.flatMap(b => ruleChanges(file, b, from, to))
        // Imports, exports and the rest: errors of the whole config that differ (mapping errors are above).
        val others =
          if (!isServerConfig(doc, forced)) Nil
          else {
            // The other blocks too (fields, cipher and curve names a release knows); the files read the same on both.
            def errors(v: ServerVersion) =
              ((try Accounts.fromDocument(doc, v).problems
              catch { case _: ConfSyntaxException => Nil }) ++ ServerOptions.check(doc, v, readFiles = false).problems)
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

  /**
   * What changes for one block's rules, as each release loads the block ([[MappingTable.load]]). A config
   * file's block: each destination's verdict and, valid on both, what it builds. An account JWT's: the rules
   * one release loads and the other leaves out of the account, then what the destinations of the rules both
   * load build. `file` null: the text has no lines (account JWTs), the block's `where` says where it is.
   */
  private def ruleChanges(file: ConfFile, block: Block, from: ServerVersion, to: ServerVersion): Seq[Change] = {
    val rules = block.mappings.entries.groupBy(_._1).map { case (k, vs) => k -> vs.last._2 } // the last one wins
    val order = block.mappings.entries.map(_._1).distinct
    def where(v: ConfValue) = block.where.getOrElse((file.fileOf(v), v.line))
    block.source match {
      case MappingSource.ConfigFile =>
        order.flatMap(r => destinationChanges(r, rules(r), where, block.account, from, to))
      case MappingSource.AccountJwt =>
        def load(v: ServerVersion) = MappingTable.load(block.mappings, v, block.source, block.account)
        val (before, after) = (load(from), load(to))
        if (before.refused || after.refused) return Nil // the account itself: its errors are the claims'
        def leftOut(load: MappingLoad) = load.leftOut.toMap
        order.flatMap { r =>
          val (at, what) = (where(rules(r)), GoQuote(r))
          (leftOut(before).get(r), leftOut(after).get(r)) match {
            case (None, Some(e)) => Seq(Change(at._1, at._2, what, "become left out", "loaded", s"left out: $e"))
            case (Some(e), None) => Seq(Change(at._1, at._2, what, "become loaded", s"left out: $e", "loaded"))
            case (None, None) => destinationChanges(r, rules(r), where, block.account, from, to)
            case _ => Nil // left out by both: nothing changes for its messages
          }
        }
    }
  }

  /** Every destination of one rule of `account`'s, compiled on both lines: its verdict and what it builds. */
  private def destinationChanges(rule: String, value: ConfValue, where: ConfValue => (String, Int), account: String,
      from: ServerVersion, to: ServerVersion): Seq[Change] = {
    val installedFor = if (account == null) AccountFunctions.NoAccount else AccountFunctions.Context(account)
    def destinations(v: ConfValue): Seq[(String, ConfValue)] = v match {
      case Str(d, _, _) => Seq(d -> v)
      case o: Obj => o.entries.collectFirst {
          case (k, Str(d, _, _)) if Set("destination", "dest", "subject")(GoBytes.lower(k)) => d -> o
        }.toSeq
      case Arr(items, _) => items.flatMap(destinations)
      case _ => Nil
    }
    destinations(value).flatMap { case (dest, at) =>
      def compiled(v: ServerVersion): Either[String, SubjectTransform] =
        try Right(SubjectTransform.compileForAccount(rule, dest, false, v, installedFor))
        catch { case e: InvalidTransformException => Left(e.reason) }
      val what = s"${GoQuote(rule)} -> ${GoQuote(dest)}"
      val (f, l) = where(at)
      (compiled(from), compiled(to)) match {
        case (Right(_), Left(e)) => Some(Change(f, l, what, "become invalid", "valid", e))
        case (Left(e), Right(_)) => Some(Change(f, l, what, "become valid", e, "valid"))
        case (Left(x), Left(y)) if x != y => Some(Change(f, l, what, "change their error", x, y))
        case (Right(x), Right(y)) =>
          val tokens = x.tokensBuiltOtherwiseThan(y)
          def how(t: SubjectTransform, v: ServerVersion) =
            if (t.crashesServer) SubjectTransform.crashWords(t, v)
            else s"delivers it, building ${tokens.mkString(", ")} as this line does"
          if (tokens.isEmpty) None
          else Some(Change(f, l, what, "deliver otherwise", how(x, from), how(y, to)))
        case _ => None
      }
    }
  }

  private def plural(n: Int, word: String, words: String = null): String =
    s"$n ${if (n == 1) word else Option(words).getOrElse(word + "s")}"
}
