package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.{Golden, InvalidTransformException, ServerVersion, SubjectTransform}

/**
 * With a server line chosen, the engine agrees with every golden case that line's real binary produced
 * (tests/golden/servers/<line>/; regenerate with `bash scripts/nats-servers.sh && python3
 * tests/server_lines_golden.py`): verdicts, error texts and delivered subjects.
 */
class ServerLinesGoldenSuite extends AnyFunSuite {
  import Golden._

  private def transformFailures(version: ServerVersion): Seq[String] = transformCasesOf(version.line).flatMap { c =>
    val outcome =
      try {
        val tr = SubjectTransform.compile(c.src, c.dest, false, version)
        if (!c.accepted) Some(s"accepted; expected ${c.error.orNull}")
        else c.subject match {
          case Some(s) if c.expected.isDefined || c.randomPattern.isDefined =>
            val actual = Golden.run(tr, s)
            if (c.agrees(actual)) None
            else Some(s"gave ${Option(actual).map(new String(_, UTF_8))}; expected ${c.expectedText}")
          case _ => None
        }
      } catch {
        case e: InvalidTransformException =>
          if (c.error.contains(e.natsMessage)) None
          else Some(s"got  ${e.natsMessage}\n      want ${c.error.getOrElse("accepted")}")
      }
    outcome.map(o => s"${c.id}: ${c.src} -> ${c.dest} on ${c.subject.orNull}: $o")
  }

  private def mapFailures(version: ServerVersion): Seq[String] = mapCasesOf(version.line).flatMap { c =>
    val outcome =
      try {
        val table = MappingTable.compile(c.mappings, version)
        if (!c.accepted) Some(s"accepted; expected ${c.error.orNull}")
        else {
          val actual = table(c.subject)
          if (c.expected.forall(_.orNull == actual)) None else Some(s"gave $actual, expected ${c.expected}")
        }
      } catch {
        case e: InvalidMappingsException =>
          if (e.problems.exists(p => c.error.contains(p.message))) None
          else Some(s"got ${e.problems.map(_.message)}, want ${c.error.getOrElse("accepted")}")
      }
    outcome.map(o => s"${c.id}: ${c.mappings} on ${c.subject}: $o")
  }

  for (version <- ServerVersion.all) {
    test(s"${version.line}: every transform case gets that binary's verdict, error text and delivered subject") {
      val cases = transformCasesOf(version.line)
      assert(cases.size > 2000 && cases.count(_.accepted) > 1000 && cases.count(!_.accepted) > 300)
      val failures = transformFailures(version)
      assert(failures.isEmpty, failures.take(30).mkString("\n", "\n", s"\n(${failures.size} failures)"))
    }

    test(s"${version.line}: every mapping table case gets that binary's verdict, error text and delivered subject") {
      assert(mapCasesOf(version.line).size > 200)
      val failures = mapFailures(version)
      assert(failures.isEmpty, failures.take(30).mkString("\n", "\n", s"\n(${failures.size} failures)"))
    }
  }

  test("the lines' golden files differ where the binaries do (else the per-line proof would prove little)") {
    val newest = transformCasesOf("2.15").map(c => c.id -> c).toMap
    def differing(line: String) = transformCasesOf(line).count { c =>
      val n = newest(c.id)
      c.accepted != n.accepted || c.error != n.error || c.expected != n.expected
    }
    assert(differing("2.10") > differing("2.12") && differing("2.12") > 0)
    val shared = transformCases.map(_.id).toSet
    assert(transformCasesOf("2.15").filter(c => shared.contains(c.id)).map(c => (c.id, c.accepted, c.error)) ==
      transformCases.filter(c => newest.contains(c.id)).map(c => (c.id, c.accepted, c.error)))
  }

  test("every line's golden file has non-ASCII subjects through the byte-counting functions, cut inside characters") {
    for (version <- ServerVersion.all) {
      val bytes = transformCasesOf(version.line).filter(c => c.id.startsWith("bytes-") && c.accepted)
      val cut = bytes.flatMap(_.expected.flatten).count(b => !isUtf8(b.toArray))
      assert(bytes.size > 60 && cut > 10, s"${version.line}: ${bytes.size} accepted, $cut not UTF-8")
    }
  }

  private def isUtf8(b: Array[Byte]): Boolean =
    try { UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b)); true }
    catch { case _: java.nio.charset.CharacterCodingException => false }
}
