package subjxform.engine

import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

import subjxform.config.{
  ConfSyntax, ConfSyntaxException, ConfValue, FilterTransforms, InvalidMappingsException, InvalidStreamConfigException,
  MappingTable, StreamConfigJson
}

/** Input built to hurt: texts nested thousands deep, destinations that ask for enormous subjects. */
class HostileInputSuite extends AnyFunSuite {

  private def nested(open: String, close: String, depth: Int): String = open * depth + close * depth
  private def nestedMaps(depth: Int): String = "{b " * depth + "1" + "}" * depth

  // --- Nesting (issue 13, item 3) ------------------------------------------------------------------

  test("lists and maps nested deeper than MaxDepth are an error naming the line, in JSON and in config syntax") {
    for (depth <- Seq(ConfSyntax.MaxDepth + 1, 200000)) {
      val deepList = nested("[", "]", depth)
      val texts = Seq(
        s"""{\n"a": $deepList}""", // JSON
        s"""\n a: $deepList""", // config syntax
        "\n a " + nestedMaps(depth)) // maps in config syntax
      for (text <- texts) {
        val e = intercept[ConfSyntaxException](ConfSyntax.parseDocument(text))
        assert(e.getMessage == s"Parse error on line 2: 'lists and maps nested more than ${ConfSyntax.MaxDepth} deep'",
          text.take(20))
        // Each caller turns it into its own error: a mapping table's, a stream config's.
        val m = intercept[InvalidMappingsException](MappingTable.compile(text))
        assert(m.getMessage.contains("nested more than 10000 deep"))
        assert(MappingTable.validate(text).exists(p => p.isError && p.message.contains("line 2")))
        val s = intercept[InvalidStreamConfigException](StreamConfigJson.parse(text))
        assert(s.field == "config" && s.description.contains("nested more than 10000 deep"))
      }
    }
  }

  test("nesting up to MaxDepth is read on a thread with a small stack: the readers do not recurse") {
    var failure: Throwable = null
    val reader = new Thread(null,
      () => {
        try {
          for (text <- Seq(s"""{"a": ${nested("[", "]", ConfSyntax.MaxDepth - 1)}}""",
              "a: " + nested("[", "]", ConfSyntax.MaxDepth - 1), "a " + nestedMaps(ConfSyntax.MaxDepth - 1))) {
            var v: ConfValue = ConfSyntax.parseDocument(text).get("a").get
            var depth = 1
            while (v match {
                case ConfValue.Arr(Vector(inner), _) => v = inner; true
                case ConfValue.Obj(Vector(("b", inner)), _, _) => v = inner; true
                case _ => false
              }) depth += 1
            assert(depth >= ConfSyntax.MaxDepth - 2, text.take(20))
          }
        } catch { case t: Throwable => failure = t }
      }, "small-stack", 256 * 1024)
    reader.start()
    reader.join()
    if (failure != null) throw failure
  }

  test("a deeply nested value quoted in an error message is cut short") {
    val text = s"""{"a.b": {"destination": ${nested("[", "]", 5000)}, "weight": 100}}"""
    val p = MappingTable.validate(text)
    assert(p.size == 1 && p.head.message.startsWith("Expected a string for the mapping destination, got [[[[[[[["))
    assert(p.head.message.contains("...") && p.head.message.length < 100, p.head.message)
  }

  // --- Output size (issue 13, item 4) --------------------------------------------------------------

  private val bean = ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
  private def allocatedBy(body: => Unit): Long = {
    val id = Thread.currentThread.getId
    val before = bean.getThreadAllocatedBytes(id)
    body
    bean.getThreadAllocatedBytes(id) - before
  }

  private val longToken = ("x" * (1 << 20)).getBytes(UTF_8) // a 1 MB subject of one token

  test("a small input asking for an enormous subject: SubjectTooLongException before the memory is taken") {
    // A hundred one-character slices of a 1 MB token: 200 MB asked.
    val tr = SubjectTransform.compile("*", Seq.fill(100)("{{slicefromleft(1,1)}}").mkString("."))
    val ws = new Workspace(1)
    var e: SubjectTooLongException = null
    val allocated = allocatedBy { e = intercept[SubjectTooLongException](tr(longToken, 0, longToken.length, ws)) }
    assert(e.limit == Workspace.MaxSubjectBytes && e.size > e.limit && e.size <= e.limit + 2)
    assert(e.getMessage.contains(s"more than the limit of ${Workspace.MaxSubjectBytes} bytes"))
    assert(e.isInstanceOf[IllegalArgumentException])
    // The buffer doubled up to the limit: at most twice the limit in all, not the 200 MB asked.
    assert(allocated < 3L * Workspace.MaxSubjectBytes, s"allocated $allocated bytes")
    // The workspace gives the big buffer back and keeps working.
    assert(ws.out.length <= 256)
    assert(new String(tr("abc".getBytes(UTF_8), 0, 3, ws), UTF_8) == Seq.fill(100)("a.b.c").mkString("."))
  }

  test("whole-token destinations: a size beyond an int is refused before anything is allocated") {
    // `$1` 3,000 times on a 1 MB token: 3 GB, more than an array can hold.
    val tr = SubjectTransform.compile("*", Seq.fill(3000)("$1").mkString("."))
    val ws = new Workspace(1)
    var e: SubjectTooLongException = null
    val allocated = allocatedBy { e = intercept[SubjectTooLongException](tr(longToken, 0, longToken.length, ws)) }
    assert(e.size == 3000L * longToken.length + 2999)
    assert(allocated < (1 << 20), s"allocated $allocated bytes")
  }

  test("up to the limit a long subject is built as before; the bound holds in tables and filter lists") {
    val ws = new Workspace(1)
    val fine = SubjectTransform.compile("*", "a.$1.$1.$1") // 3 MB out of a 1 MB token
    assert(fine(longToken, 0, longToken.length, ws).length == 3 * longToken.length + 4)
    val table =
      MappingTable.compile("""{"*": "{{slicefromleft(1,1)}}.{{slicefromleft(1,1)}}.{{slicefromleft(1,1)}}.{{slicefromleft(1,1)}}.{{slicefromleft(1,1)}}"}""")
    intercept[SubjectTooLongException](table(longToken, 0, longToken.length, null, 0, 0, ws))
    val list = FilterTransforms.of("*", Seq.fill(9)("$1").mkString("."))
    intercept[SubjectTooLongException](list(longToken, 0, longToken.length, ws))
    // Matching, filtering and keeping a long subject unchanged build nothing: no bound.
    val huge = ("y" * (Workspace.MaxSubjectBytes + 1)).getBytes(UTF_8)
    assert(MappingTable.compile("""{"a.*": "b.$1"}""")(huge, 0, huge.length, null, 0, 0, ws) eq MappingTable.Unchanged)
    assert(FilterTransforms.of(">", "")(huge, 0, huge.length, ws).length == huge.length)
  }
}
