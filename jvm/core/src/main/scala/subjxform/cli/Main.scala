package subjxform.cli

import java.io.{BufferedReader, InputStreamReader, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import subjxform.core.{InvalidTransformException, SubjectTransform, Subjects}

/**
 * The command line, on the same engine as the Spark functions and without Spark:
 * `subjxform mapping [--strict] SRC DEST [SUBJECT...]` behaves like `nats server mapping`;
 * `subjxform validate FILE` checks a mappings block or a stream config ([[Validate]]).
 * Started by the Python console script `subjxform` (which adds the Scala library to the classpath).
 */
object Main {
  val NoMatch = "no matching transforms available" // nats-server's ErrNoTransforms
  val BadSubject = "invalid subject" // nats-server's ErrBadSubject

  def main(args: Array[String]): Unit = {
    val out = new PrintStream(System.out, true, UTF_8.name)
    val code = args.toList match {
      case "mapping" :: rest => mapping(rest, new BufferedReader(new InputStreamReader(System.in, UTF_8)), out)
      case "validate" :: rest => validate(rest, System.in, out)
      case _ =>
        out.println("usage: subjxform mapping [--strict] SRC DEST [SUBJECT...]")
        out.println("       subjxform validate [--mappings | --stream] FILE...")
        2
    }
    out.flush()
    sys.exit(code)
  }

  /** What `nats server mapping` prints for one subject: the new subject, or `Error: <reason>`. */
  def show(tr: SubjectTransform, subject: String): String = {
    val bytes = subject.getBytes(UTF_8)
    if (!Subjects.isValidLiteral(bytes, 0, bytes.length)) s"Error: $BadSubject"
    else if (!tr.matches(bytes, 0, bytes.length, new subjxform.core.Workspace)) s"Error: $NoMatch"
    else Option(tr(subject)).getOrElse("Error: the result has an empty token (nats-server drops such a message)")
  }

  def mapping(args: List[String], in: BufferedReader, out: PrintStream): Int = {
    val strict = args.contains("--strict")
    args.filterNot(_ == "--strict") match {
      case src :: dest :: subjects =>
        val tr =
          try SubjectTransform.compile(src, dest, strict)
          catch {
            case e: InvalidTransformException =>
              out.println(s"Error: ${e.reason}")
              return 1
          }
        if (subjects.nonEmpty) subjects.foreach { s => out.println(show(tr, s)); out.println() }
        else {
          out.println("Enter subjects to test, empty subject terminates.")
          out.println()
          var line = prompt(in, out)
          while (line != null && line.nonEmpty) {
            out.println(show(tr, line))
            out.println()
            line = prompt(in, out)
          }
        }
        0
      case _ =>
        out.println("usage: subjxform mapping [--strict] SRC DEST [SUBJECT...]")
        2
    }
  }

  /** InputStream.readAllBytes, which Java 8 does not have. */
  private def readAll(in: java.io.InputStream): Array[Byte] = {
    val bytes = new java.io.ByteArrayOutputStream
    val buffer = new Array[Byte](8192)
    var n = in.read(buffer)
    while (n >= 0) { bytes.write(buffer, 0, n); n = in.read(buffer) }
    bytes.toByteArray
  }

  /** `validate [--mappings | --stream] FILE`: 0 valid, 1 problems, 2 usage or a file that cannot be read. */
  def validate(args: List[String], stdin: java.io.InputStream, out: PrintStream): Int = {
    val forced = args.collect {
      case "--mappings" => Validate.Mappings
      case "--stream" => Validate.Stream
    }
    args.filterNot(a => a == "--mappings" || a == "--stream") match {
      case files @ (_ :: _ :: _) if forced.size <= 1 && files.forall(f => f != "-" && !f.startsWith("-")) =>
        // Several files: each one's report, its summary line led by its name; the worst exit code.
        files.map { file =>
          val bytes = new java.io.ByteArrayOutputStream
          val code = validate(forced.map(k => if (k == Validate.Stream) "--stream" else "--mappings") ++ List(file), stdin,
            new PrintStream(bytes, true, "UTF-8"))
          new String(bytes.toByteArray, UTF_8).linesIterator.foreach { line =>
            out.println(if (line.startsWith("OK: ")) s"$file: $line" else line)
          }
          code
        }.max
      case file :: Nil if forced.size <= 1 && (file == "-" || !file.startsWith("-")) =>
        val name = if (file == "-") "<stdin>" else file
        val text =
          try new String(if (file == "-") readAll(stdin) else Files.readAllBytes(Paths.get(file)), UTF_8)
          catch {
            case e: java.io.IOException =>
              val why = e match {
                case _: java.nio.file.NoSuchFileException => "no such file"
                case _: java.nio.file.AccessDeniedException => "permission denied"
                case _ => Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
              }
              out.println(s"subjxform validate: cannot read $name: $why")
              return 2
          }
        Validate.run(text, name, forced.headOption, out)
      case _ =>
        out.println(Validate.Usage)
        2
    }
  }

  private def prompt(in: BufferedReader, out: PrintStream): String = {
    out.print("? Subject ")
    out.flush()
    val line = in.readLine()
    if (line == null) out.println()
    if (line == null) null else line.trim
  }
}
