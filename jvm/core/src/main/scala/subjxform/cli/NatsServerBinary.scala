package subjxform.cli

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.TimeUnit

import subjxform.engine.ServerVersion

/**
 * A real nats-server binary, run beside `validate` (`--nats-server PATH`): the user's own check of the check.
 * Its `--version` names the release checked; its `-t -c FILE` gives its verdict, in its own words.
 */
private[cli] object NatsServerBinary {

  /** What the binary's `-t` said of a file. */
  final case class Verdict(release: String, valid: Boolean, words: String) {
    def describe: String =
      if (valid) s"$release -t: valid" else s"$release -t: refused: $words"
  }

  /** The release the binary is ("nats-server: v2.15.1"), as a version, or why it cannot be told. */
  def version(binary: String): Either[String, ServerVersion] =
    run(binary, Seq("--version")).flatMap { case (code, output) =>
      val said = output.trim
      if (code != 0) Left(s"$binary --version exited with $code: $said")
      else
        try Right(ServerVersion.parse(said))
        catch { case e: IllegalArgumentException => Left(s"$binary --version printed '$said': ${e.getMessage}") }
    }

  /** The binary's `-t` verdict on `file`, or why it could not be run. */
  def check(binary: String, file: String): Either[String, Verdict] =
    for {
      release <- run(binary, Seq("--version")).map(_._2.trim.stripPrefix("nats-server: v"))
      result <- run(binary, Seq("-t", "-c", file))
    } yield {
      val (code, output) = result
      // Its words without its own name in front: "bad.conf:2:1: unknown field "foo"".
      val words = output.linesIterator.map(_.stripPrefix("nats-server: ").trim).filter(_.nonEmpty).mkString("; ")
      Verdict(s"nats-server $release", code == 0, words)
    }

  /** The exit code and the output (stdout and stderr together), or why it could not be run. */
  private def run(binary: String, args: Seq[String]): Either[String, (Int, String)] =
    try {
      val process = new ProcessBuilder((binary +: args): _*).redirectErrorStream(true).start()
      process.getOutputStream.close()
      val output = new String(Main.readAll(process.getInputStream), UTF_8)
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly()
        Left(s"$binary ${args.mkString(" ")} did not finish in 60 s")
      } else Right((process.exitValue(), output))
    } catch {
      case e: java.io.IOException => Left(s"cannot run $binary: ${Option(e.getMessage).getOrElse("I/O error")}")
    }
}
