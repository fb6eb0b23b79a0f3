package subjxform.config

import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.Golden

/** The mapping tables agree with every account-mapping case a real nats-server 2.15.1 produced. */
class GoldenMapSuite extends AnyFunSuite {
  import Golden._

  test("the golden file has accepted and rejected tables") {
    assert(mapCases.size > 200)
    assert(mapCases.count(_.accepted) > 50 && mapCases.count(!_.accepted) > 50)
    assert(mapCases.exists(_.expected.contains(None)))
  }

  test("every accepted table compiles and maps the subject as nats-server did (no cluster)") {
    val failures = mapCases.filter(_.accepted).flatMap { c =>
      try {
        val table = MappingTable.compile(c.mappings)
        val actual = table(c.subject)
        if (c.expected.forall(_.orNull == actual)) None
        else Some(s"${c.id}: ${c.subject} gave $actual, expected ${c.expected}")
      } catch { case e: InvalidMappingsException => Some(s"${c.id}: rejected: ${e.getMessage}") }
    }
    assert(failures.isEmpty, failures.take(30).mkString("\n", "\n", s"\n(${failures.size} failures)"))
  }

  test("every rejected table is rejected with nats-server's exact message") {
    val failures = mapCases.filterNot(_.accepted).flatMap { c =>
      try {
        MappingTable.compile(c.mappings)
        Some(s"${c.id}: accepted; expected ${c.error}")
      } catch {
        case e: InvalidMappingsException if e.problems.exists(p => c.error.contains(p.message)) => None
        case e: InvalidMappingsException =>
          Some(s"${c.id}: got  ${e.problems.map(_.message)}\n      want ${c.error.orNull}")
      }
    }
    assert(failures.isEmpty, failures.take(30).mkString("\n", "\n", s"\n(${failures.size} failures)"))
  }
}
