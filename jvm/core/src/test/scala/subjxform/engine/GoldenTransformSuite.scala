package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

/** The engine agrees with every case a real nats-server 2.15.1 produced. */
class GoldenTransformSuite extends AnyFunSuite {
  import Golden._

  test("the golden file has cases of every kind") {
    assert(transformCases.size > 2000)
    assert(transformCases.exists(!_.accepted))
    assert(transformCases.exists(_.randomPattern.isDefined))
    assert(transformCases.exists(_.expected.contains(None)))
  }

  test("every accepted case compiles and gives the expected subject") {
    val failures = transformCases.filter(_.accepted).flatMap { c =>
      val outcome =
        try {
          val tr = SubjectTransform.compile(c.src, c.dest)
          c.subject match {
            case Some(s) if c.expected.isDefined || c.randomPattern.isDefined =>
              val actual = Golden.run(tr, s)
              if (c.agrees(actual)) None else Some(s"gave ${Option(actual).map(new String(_, UTF_8))}")
            case _ => None
          }
        } catch { case e: InvalidTransformException => Some(s"rejected: ${e.natsMessage}") }
      outcome.map(o => s"${c.id}: ${c.src} -> ${c.dest} on ${c.subject}: $o; expected ${c.expectedText}")
    }
    assert(failures.isEmpty, failures.take(30).mkString("\n", "\n", s"\n(${failures.size} failures)"))
  }

  test("every rejected case is rejected with nats-server's own message") {
    val failures = transformCases.filterNot(_.accepted).flatMap { c =>
      try {
        SubjectTransform.compile(c.src, c.dest)
        Some(s"${c.id}: ${c.src} -> ${c.dest} accepted; expected ${c.error}")
      } catch {
        case e: InvalidTransformException if c.error.contains(e.natsMessage) => None
        case e: InvalidTransformException => Some(s"${c.id}: got  ${e.natsMessage}\n      want ${c.error.orNull}")
      }
    }
    assert(failures.isEmpty, failures.take(30).mkString("\n", "\n", s"\n(${failures.size} failures)"))
  }

  test("random cases give integers in range over many draws") {
    val cases = transformCases.filter(c => c.accepted && c.randomPattern.isDefined && c.subject.isDefined)
    assert(cases.nonEmpty)
    for (c <- cases; tr = SubjectTransform.compile(c.src, c.dest); _ <- 1 to 20) {
      val actual = Golden.run(tr, c.subject.get)
      assert(c.agrees(actual), s"${c.id}: ${new String(actual, UTF_8)} does not fit ${c.randomPattern.get}")
    }
  }
}
