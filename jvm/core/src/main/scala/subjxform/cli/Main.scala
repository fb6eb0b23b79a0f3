package subjxform.cli

import java.io.{InputStream, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import subjxform.config.GoBytes
import subjxform.engine.{
  AccountFunctions, InvalidTransformException, ServerVersion, Subjects, SubjectTooLongException, SubjectTransform,
  Workspace
}

/**
 * The command line, on the same engine as the Spark functions and without Spark:
 * `subjxform mapping [--strict] SRC DEST [SUBJECT...]` behaves like `nats server mapping`;
 * `subjxform validate FILE` checks a mappings block or a stream config ([[Validate]]).
 * Started by the Python console script `subjxform` (which adds the Scala library to the classpath).
 *
 * Subjects are bytes end to end, as nats-server treats them: a subject that is not valid UTF-8 is
 * transformed (and `{{partition}}` hashed) byte for byte, never through U+FFFD. The JVM decodes its
 * command line with the platform's charset, which cannot give such bytes back, so the launcher passes
 * every argument as hex after [[ArgsHex]]; the interactive prompt reads stdin as bytes.
 */
object Main {
  val NoMatch = "no matching transforms available" // nats-server's ErrNoTransforms
  val BadSubject = "invalid subject" // nats-server's ErrBadSubject

  /** First argument from the launcher: every following argument is the hex of its bytes. */
  val ArgsHex = "--args-hex"

  val MappingUsage: String =
    """usage: subjxform mapping [--strict] [--server-version V] [--account NAME] SRC DEST [--] [SUBJECT...]
      |  Applies the transform SRC -> DEST to each SUBJECT as nats-server would (as nats server mapping does):
      |  prints the new subject or nats-server's error, each followed by an empty line; with no
      |  SUBJECT, asks for subjects until an empty one. --strict: the import/export rules.
      |  --server-version V: as nats-server line V does (2.10, 2.11, 2.12, 2.14, 2.15 or a release like
      |  2.10.26; default the newest).
      |  --account NAME: the transform is installed for account NAME (its public key in operator mode):
      |  2.14.10 and 2.15.3 put the hash of its name where DEST says {{account-hash()}}.
      |  Exit code 0 when the transform is valid, whatever the subjects give (a subject that does not
      |  match or is not a valid subject prints an "Error: ..." line), 1 when it is invalid, 2 for a
      |  usage error. A SUBJECT that starts with '-' goes after '--'.""".stripMargin

  val Usage: String =
    s"""usage: subjxform mapping [--strict] [--server-version V] [--account NAME] SRC DEST [--] [SUBJECT...]
       |       subjxform validate [--mappings | --stream] [--server-version V [--upgrade-to W]] [--allow-crashes]
       |                          [--no-file-checks] FILE...
       |       subjxform --help | --version | mapping --help | validate --help""".stripMargin

  /** The project's version (version.txt), which the build writes into the jar beside these classes. */
  lazy val version: String = Option(getClass.getResourceAsStream("/subjxform/version.txt")) match {
    case Some(in) =>
      try new String(readAll(in), UTF_8).trim
      finally in.close()
    case None => "unknown" // classes run outside a build's output
  }

  private def isHelp(a: String) = a == "--help" || a == "-h" || a == "help"

  /** A usage error as every subcommand reports one (the Python commands too): one line, then exit code 2. */
  private[cli] def usageError(prog: String, message: String): String = s"$prog: $message (see $prog --help)"

  /**
   * Takes `--NAME V` / `--NAME=V` (before any `--`) out of `args`: (the version, the other arguments), or
   * Left(the error to print) for a missing or unsupported version.
   */
  private[cli] def versionOption[A](
      option: String, args: List[A], text: A => String): Either[String, (Option[ServerVersion], List[A])] =
    valueOption(option, args, s"a version (supported lines: ${ServerVersion.supported})", text).flatMap {
      case (found, rest) =>
        try Right((found.map(ServerVersion.parse), rest))
        catch { case e: IllegalArgumentException => Left(s"$option: ${e.getMessage}") }
    }

  /**
   * Takes `--NAME VALUE` / `--NAME=VALUE` (before any `--`) out of `args`, arguments read as `text` (they are bytes
   * where subjects are given): (the value, the other arguments as they were), or Left(the error to print) when the
   * value is missing (`what` says what it should be).
   */
  private def valueOption[A](
      option: String, args: List[A], what: String, text: A => String): Either[String, (Option[String], List[A])] = {
    var found: Option[String] = None
    var rest = List.empty[A]
    var it = args
    var options = true
    while (it.nonEmpty) {
      val a = it.head
      val t = text(a)
      it = it.tail
      if (options && t == "--") { options = false; rest :+= a }
      else if (options && t == option) {
        if (it.isEmpty) return Left(s"$option needs $what")
        found = Some(text(it.head))
        it = it.tail
      } else if (options && t.startsWith(option + "=")) found = Some(t.substring(option.length + 1))
      else rest :+= a
    }
    Right((found, rest))
  }

  private val asText: String => String = s => s
  private val bytesAsText: Array[Byte] => String = b => new String(b, UTF_8)

  def main(argv: Array[String]): Unit = {
    val out = new PrintStream(System.out, true, UTF_8.name)
    val args =
      if (argv.headOption.contains(ArgsHex)) argv.toList.tail.map(hexBytes)
      else argv.toList.map(_.getBytes(UTF_8))
    val code = args.map(new String(_, UTF_8)) match {
      case "mapping" :: _ => mapping(args.tail, System.in, out, System.err)
      case "validate" :: _ => validate(args.tail, System.in, out, System.err)
      case h :: Nil if isHelp(h) => out.println(Usage); 0
      case "--version" :: Nil => out.println(s"subjxform $version"); 0
      case _ => System.err.println(usageError("subjxform", "the commands here are mapping and validate")); 2
    }
    out.flush()
    sys.exit(code)
  }

  private def hexBytes(hex: String): Array[Byte] = {
    val b = new Array[Byte](hex.length / 2)
    for (i <- b.indices) b(i) = Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16).toByte
    b
  }

  /** What `nats server mapping` prints for one subject: the new subject, or `Error: <reason>`. */
  def show(tr: SubjectTransform, subject: Array[Byte], ws: Workspace, version: ServerVersion): Array[Byte] = {
    def error(reason: String) = s"Error: $reason".getBytes(UTF_8)
    if (!Subjects.isValidLiteral(subject, 0, subject.length)) error(BadSubject)
    else if (!tr.matches(subject, 0, subject.length, ws)) error(NoMatch)
    else {
      val r =
        try tr(subject, 0, subject.length, ws)
        catch { case e: SubjectTooLongException => return error(e.getMessage) }
      if (r == null && tr.crashesServer) error(SubjectTransform.crashWords(tr, version))
      else if (r == null) error("the result has an empty token (nats-server drops such a message)")
      else r
    }
  }

  /** `mapping [--strict] SRC DEST [--] [SUBJECT...]`, each argument as bytes. Returns the exit code. */
  def mapping(allArgs: List[Array[Byte]], in: InputStream, out: PrintStream, err: PrintStream): Int = {
    // The options with values are taken out first (their values are text); subjects stay bytes.
    val options = versionOption("--server-version", allArgs, bytesAsText).flatMap { case (version, afterVersion) =>
      valueOption("--account", afterVersion, "an account's name", bytesAsText).flatMap {
        case (Some(""), _) => Left(s"--account: ${AccountFunctions.NoAccountName}")
        case (account, rest) => Right((version.getOrElse(ServerVersion.Newest), account, rest))
      }
    }
    val (version, account, args) = options match {
      case Left(problem) =>
        err.println(usageError("subjxform mapping", problem))
        return 2
      case Right(taken) => taken
    }
    var strict = false
    var positional = List.empty[Array[Byte]]
    var inOptions = true
    for (a <- args) {
      val s = new String(a, UTF_8)
      if (inOptions && s == "--") inOptions = false
      else if (inOptions && s == "--strict") strict = true
      else if (inOptions && isHelp(s) && positional.isEmpty) { out.println(MappingUsage); return 0 }
      else if (inOptions && s.startsWith("-") && s.length > 1) {
        err.println(usageError("subjxform mapping",
            s"unknown option $s (a SUBJECT that starts with '-' goes after '--')"))
        return 2
      } else positional :+= a
    }
    positional match {
      case srcBytes :: destBytes :: subjects =>
        val (src, dest) = (new String(srcBytes, UTF_8), new String(destBytes, UTF_8))
        val tr =
          try SubjectTransform.compileForAccount(src, dest, strict, version,
              account.fold(AccountFunctions.NoAccount)(AccountFunctions.Context(_)))
          catch {
            case e: InvalidTransformException =>
              out.println(s"Error: ${e.reason}")
              return 1
          }
        val ws = new Workspace
        def print(subject: Array[Byte]): Unit = {
          out.write(show(tr, subject, ws, version)); out.println(); out.println()
        }
        if (subjects.nonEmpty) subjects.foreach(print)
        else {
          out.println("Enter subjects to test, empty subject terminates.")
          out.println()
          var line = prompt(in, out)
          while (line != null && line.nonEmpty) {
            print(line)
            line = prompt(in, out)
          }
        }
        0
      case _ =>
        err.println(usageError("subjxform mapping", "SRC and DEST are needed"))
        2
    }
  }

  /** What `validate`'s command line asks for, read once. */
  private final case class ValidateRequest(version: Option[ServerVersion], upgradeTo: Option[ServerVersion],
      forced: Option[Validate.Kind], allowCrashes: Boolean, readFiles: Boolean, files: List[String],
      natsServer: Option[String] = None)

  private val ValidateFlags = Set("--mappings", "--stream", "--allow-crashes", "--no-file-checks")

  /** The request, or the usage error's message. */
  private def validateRequest(texts: List[String]): Either[String, ValidateRequest] =
    valueOption("--nats-server", texts, "the path of a nats-server binary", asText).flatMap { case (natsServer, rest) =>
      versionOption("--server-version", rest, asText).flatMap { case (version, rest2) =>
        versionOption("--upgrade-to", rest2, asText).map { case (upgradeTo, args) =>
          (natsServer, version, upgradeTo, args)
        }
      }
    }.flatMap { case (natsServer, version, upgradeTo, args) =>
      val forced = args.collect { case "--mappings" => Validate.Mappings; case "--stream" => Validate.Stream }
      val files = args.filterNot(ValidateFlags)
      args.find(a => a.startsWith("-") && a != "-" && !ValidateFlags(a)) match {
        case Some(unknown) => Left(s"unknown option $unknown")
        case None if upgradeTo.isDefined && version.isEmpty =>
          Left("--upgrade-to needs --server-version (the line upgraded from)")
        case None if forced.size > 1 => Left("--mappings or --stream, not both")
        case None if files.isEmpty => Left("FILE is needed")
        case None if files.size > 1 && files.contains("-") =>
          Left("standard input ('-') is read alone, not with other FILEs")
        case None if natsServer.isDefined && files.contains("-") =>
          Left("--nats-server runs -t on a FILE, not on standard input")
        case None => Right(ValidateRequest(version, upgradeTo, forced.headOption, args.contains("--allow-crashes"),
              !args.contains("--no-file-checks"), files, natsServer))
      }
    }

  /**
   * `validate [--mappings | --stream] FILE...`: 0 valid, 1 problems, 2 usage or a file that cannot be read
   * (several files: each one's report, its summary line led by its name; the worst exit code). A usage error
   * goes to `err`, as every command's does.
   */
  def validate(argBytes: List[Array[Byte]], stdin: InputStream, out: PrintStream,
      err: PrintStream = System.err): Int = {
    val texts = argBytes.map(new String(_, UTF_8))
    if (texts.exists(isHelp)) { out.println(Validate.Usage); return 0 }
    validateRequest(texts) match {
      case Left(problem) =>
        err.println(usageError("subjxform validate", problem))
        2
      case Right(asked) =>
        // With a binary at hand, its release is the one checked, unless another is named.
        val request = asked.natsServer.filter(_ => asked.version.isEmpty) match {
          case None => asked
          case Some(binary) => NatsServerBinary.version(binary) match {
              case Left(why) =>
                err.println(s"subjxform validate: --nats-server: $why")
                return 2
              case Right(release) => asked.copy(version = Some(release))
            }
        }
        val lead = (file: String) => if (request.files.size > 1) s"$file: " else ""
        request.files.map { file =>
          val code = validateFile(request, file, lead(file), stdin, out)
          request.natsServer.filter(_ => code != 2).fold(code)(binary => beside(binary, file, code, out, err))
        }.max
    }
  }

  /**
   * The binary's `-t` verdict on `file` beside ours, a warning where they differ; the worse exit code of the
   * two (a refusal of the binary is 1), or 2 when the binary cannot be run.
   */
  private def beside(binary: String, file: String, ours: Int, out: PrintStream, err: PrintStream): Int =
    NatsServerBinary.check(binary, file) match {
      case Left(why) =>
        err.println(s"subjxform validate: --nats-server: $why")
        2
      case Right(verdict) =>
        out.println(s"$file: ${verdict.describe}")
        if (verdict.valid != (ours == 0))
          out.println(s"$file: warning: ${verdict.release} -t and subjxform differ: it " +
            (if (verdict.valid) "accepts the config, " else "refuses the config, ") +
            (if (ours == 0) "subjxform found it valid" else "subjxform found problems (above)"))
        math.max(ours, if (verdict.valid) 0 else 1)
    }

  private def validateFile(request: ValidateRequest, file: String, okLead: String, stdin: InputStream,
      out: PrintStream): Int = {
    val name = if (file == "-") "<stdin>" else file
    // Its bytes as they are (GoBytes: a byte that is no UTF-8 stays that byte), as nats-server reads a file.
    val text =
      try GoBytes.decode(if (file == "-") readAll(stdin) else Files.readAllBytes(Paths.get(file)))
      catch {
        case _: java.nio.file.InvalidPathException => // a NUL in the name
          out.println(s"subjxform validate: cannot read $name: invalid argument")
          return 2
        case e: java.io.IOException =>
          val why = e match {
            case _: java.nio.file.NoSuchFileException => "no such file"
            case _: java.nio.file.AccessDeniedException => "permission denied"
            case _ => Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
          }
          out.println(s"subjxform validate: cannot read $name: $why")
          return 2
      }
    val from = request.version.getOrElse(ServerVersion.Newest)
    request.upgradeTo match {
      case Some(to) => Validate.upgrade(text, name, request.forced, out, sys.env.get, from, to, request.allowCrashes,
          request.readFiles, okLead)
      case None =>
        Validate.run(text, name, request.forced, out, sys.env.get, from, request.allowCrashes, request.readFiles, okLead)
    }
  }

  /** InputStream.readAllBytes, which Java 8 does not have. */
  private[cli] def readAll(in: InputStream): Array[Byte] = {
    val bytes = new java.io.ByteArrayOutputStream()
    val buf = new Array[Byte](8192)
    var n = in.read(buf)
    while (n >= 0) { bytes.write(buf, 0, n); n = in.read(buf) }
    bytes.toByteArray
  }

  /**
   * The next subject typed at the prompt: a line of stdin as bytes (no decoding), without its end of
   * line and the blanks and control characters around it; null at the end of the input.
   */
  private def prompt(in: InputStream, out: PrintStream): Array[Byte] = {
    out.print("? Subject ")
    out.flush()
    val line = new java.io.ByteArrayOutputStream()
    var c = in.read()
    while (c >= 0 && c != '\n') { line.write(c); c = in.read() }
    if (c < 0 && line.size == 0) { out.println(); return null }
    val b = line.toByteArray
    var s = 0
    var e = b.length
    while (s < e && (b(s) & 0xff) <= ' ') s += 1
    while (e > s && (b(e - 1) & 0xff) <= ' ') e -= 1
    java.util.Arrays.copyOfRange(b, s, e)
  }
}
