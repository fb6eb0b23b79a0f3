package subjxform.cli

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

import subjxform.config.ConfSyntax
import subjxform.engine.{SubjectTransform, Workspace}

/** `subjxform mapping` on bytes, its options and exit codes; `validate` on a hostile file. */
class MainSuite extends AnyFunSuite {

  private def mapping(args: Seq[Array[Byte]], stdin: Array[Byte] = Array.emptyByteArray): (Int, Array[Byte], String) = {
    val out = new ByteArrayOutputStream
    val err = new ByteArrayOutputStream
    val code = Main.mapping(args.toList, new ByteArrayInputStream(stdin), new PrintStream(out, true, "UTF-8"),
      new PrintStream(err, true, "UTF-8"))
    (code, out.toByteArray, new String(err.toByteArray, UTF_8))
  }
  private def utf8(s: String*): Seq[Array[Byte]] = s.map(_.getBytes(UTF_8))

  // A token that is not UTF-8: decoded as text it would become U+FFFD, and hash differently.
  private val invalid = "orders.".getBytes(UTF_8) ++ Array(0xff.toByte, 0xfe.toByte) ++ ".42".getBytes(UTF_8)
  private val (src, dest) = ("orders.*.*", "p.{{partition(1000,1)}}.$1.$2")

  test("a subject that is not valid UTF-8 is transformed byte for byte: its partition is the engine's") {
    val expected = SubjectTransform.compile(src, dest)(invalid, 0, invalid.length, new Workspace)
    val viaText = new String(invalid, UTF_8).getBytes(UTF_8) // what decoding did: EF BF BD EF BF BD
    val lossy = SubjectTransform.compile(src, dest)(viaText, 0, viaText.length, new Workspace)
    assert(!expected.sameElements(lossy)) // the test would notice a U+FFFD
    val (code, out, _) = mapping(utf8(src, dest) :+ invalid)
    assert(code == 0)
    assert(out.sameElements(expected ++ "\n\n".getBytes(UTF_8)))
    // The prompt reads stdin as bytes too.
    val (_, prompted, _) = mapping(utf8(src, dest), invalid ++ "\n\n".getBytes(UTF_8))
    assert(prompted.containsSlice(expected))
  }

  test("--help prints the usage and exits 0; an unknown option is an error (exit 2), not the SRC") {
    val (code, out, _) = mapping(utf8("--help"))
    assert(code == 0 && new String(out, UTF_8).startsWith("usage: subjxform mapping"))
    assert(new String(out, UTF_8).contains("Exit code 0 when the transform is valid"))
    val (bad, badOut, err) = mapping(utf8("--strictly", "a.*", "b.$1", "a.x"))
    assert(bad == 2 && badOut.isEmpty && err.startsWith("subjxform mapping: unknown option --strictly"))
    assert(mapping(utf8("-x", "a", "b"))._1 == 2)
    // A subject that starts with '-' goes after '--'.
    val (ok, dashed, _) = mapping(utf8("*", "x.$1", "--", "-dash"))
    assert(ok == 0 && new String(dashed, UTF_8) == "x.-dash\n\n")
    assert(mapping(utf8("a.*", "b.$1", "--strict", "a.x"))._1 == 0) // options may follow SRC DEST, as before
  }

  test("exit codes: 0 for a valid transform whatever the subjects give, 1 for an invalid one, 2 for usage") {
    val (code, out, _) = mapping(utf8("a.*", "b.$1", "a.x", "nomatch", "a..b"))
    assert(code == 0)
    assert(new String(out, UTF_8) == "b.x\n\nError: no matching transforms available\n\nError: invalid subject\n\n")
    assert(mapping(utf8("a.*", "b.$2", "a.x"))._1 == 1)
    assert(mapping(utf8("a.*"))._1 == 2)
  }

  test("a subject too long to build is an error line, not a crash") {
    val long = ("x" * (1 << 20)).getBytes(UTF_8)
    val (code, out, _) = mapping(utf8("*", Seq.fill(9)("$1").mkString(".")) :+ long)
    assert(code == 0 && new String(out, UTF_8).startsWith("Error: the transformed subject would be at least"))
  }

  test("validate: a file nested thousands deep is one error line and exit code 1") {
    val bytes = new ByteArrayOutputStream
    val text = "mappings {\n a: " + "[" * 100000 + "]" * 100000 + "\n}"
    val code = Validate.run(text, "deep.conf", None, new PrintStream(bytes, true, "UTF-8"))
    val lines = new String(bytes.toByteArray, UTF_8).split("\n").toSeq
    assert(code == 1)
    assert(lines == Seq(
      s"deep.conf: error: Parse error on line 2: 'lists and maps nested more than ${ConfSyntax.MaxDepth} deep'"))
  }
}
