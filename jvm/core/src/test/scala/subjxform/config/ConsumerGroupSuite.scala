package subjxform.config

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.{Golden, ServerVersion, Workspace}

/**
 * Consumer groups against tests/golden/pcgroups (what the orbit.go pcgroups library v0.2.2 and
 * nats-server 2.15.1's transform did with each case: tests/pcgroups_goldens.py).
 */
class ConsumerGroupSuite extends AnyFunSuite {

  private def cases(name: String): Seq[ujson.Value] = {
    val path = Golden.root.resolve("tests/golden/pcgroups").resolve(name)
    new String(Files.readAllBytes(path), UTF_8).split("\n").toSeq.filter(_.trim.nonEmpty).map(ujson.read(_))
  }

  private def kindOf(c: ujson.Value) = ConsumerGroup.kindNamed(c("kind").str)

  // The library's messages are pinned word for word; for what nats-server refuses (the library accepts),
  // and for Go's JSON decoding errors, that it is refused and why in general terms.
  private def sameReason(expected: String, actual: String): Boolean =
    if (expected.startsWith("invalid JSON value for the ")) actual.startsWith(expected.takeWhile(_ != ':'))
    else if (expected.startsWith("invalid ")) actual == expected
    else actual.startsWith("nats-server refuses")

  for ((c, i) <- cases("validation.jsonl").zipWithIndex) {
    test(s"validation $i: ${c("kind").str} ${ujson.write(c("config"))}") {
      val parsed =
        try Right(ConsumerGroup.parse(ujson.write(c("config")), Some(kindOf(c))))
        catch { case e: InvalidConsumerGroupException => Left(e.getMessage) }
      if (c("valid").bool) assert(parsed.isRight, parsed)
      else {
        assert(parsed.isLeft, s"accepted, the library says: ${c("error").str}")
        assert(sameReason(c("error").str, parsed.left.get), parsed.left.get)
      }
    }
  }

  for ((c, i) <- cases("assignment.jsonl").zipWithIndex) {
    test(s"assignment $i: ${c("kind").str} ${ujson.write(c("config")).take(120)}") {
      // The kind from the config itself, as the functions read it.
      val group = ConsumerGroup.parse(ujson.write(c("config")))
      assert(group.kind == kindOf(c))
      assert(group.transforms.map { case (s, d) => Map("src" -> s, "dest" -> d) } ==
        c.obj.get("transforms").fold(Seq.empty[Map[String, String]])(
          _.arr.map(_.obj.map { case (k, v) => k -> v.str }.toMap).toSeq))
      for ((member, filters) <- c("filters").obj)
        assert(group.partitionFilters(member) == filters.arr.map(_.str).toSeq, member)
      val ws = new Workspace
      for (s <- c("subjects").arr) {
        val b = s("subject").str.getBytes(UTF_8)
        val p = group.partition(b, 0, b.length, ws)
        assert((if (p < 0) None else Some(p)) == (if (s("partition").isNull) None else Some(s("partition").num.toInt)),
          s("subject").str)
        assert(Option(group.member(p)) == (if (s("member").isNull) None else Some(s("member").str)), s("subject").str)
      }
    }
  }

  test("a config's kind: its own key, or an error that says how to tell") {
    assert(ConsumerGroup.parse("""{"max_members": 2, "partitioning_filters": null}""").kind == ConsumerGroup.Elastic)
    assert(ConsumerGroup.parse("""{"max_members": 2, "filters": []}""").kind == ConsumerGroup.Static)
    val neither =
      intercept[InvalidConsumerGroupException](ConsumerGroup.parse("""{"max_members": 2, "members": ["a"]}"""))
    assert(neither.getMessage.contains("neither \"partitioning_filters\" nor \"filters\""))
    intercept[InvalidConsumerGroupException](
      ConsumerGroup.parse("""{"max_members": 2, "filters": [], "partitioning_filters": []}"""))
    assert(ConsumerGroup.parse("""{"max_members": 2, "members": ["a"]}""", Some(ConsumerGroup.Static)).memberOf(
      "1.x") == "a")
  }

  test("max_members beyond a 32-bit partition count is refused, not wrapped") {
    val e = intercept[InvalidConsumerGroupException](
      ConsumerGroup.parse("""{"max_members": 4294967297, "partitioning_filters": null}"""))
    assert(e.getMessage.contains("at most 2147483647"))
  }

  test("a static group takes only Go's %d of a partition below N as the first token") {
    val g = ConsumerGroup.parse("""{"max_members": 12, "filters": [], "members": ["a", "b"]}""")
    assert(Seq("0.x", "11.x", "7.y.z").map(g.partition) == Seq(0, 11, 7))
    assert(Seq("00.x", "01.x", "12.x", "99999999999999999999.x", "-1.x", "+1.x", "1", "1.*", "1..x", "").map(
        g.partition).forall(_ == -1))
  }

  test("every server line partitions an elastic group's messages alike (the hash has not changed)") {
    val config =
      """{"max_members": 7, "partitioning_filters": [{"filter": "orders.*.*", "partitioning_wildcards": [2]}]}"""
    for (line <- ServerVersion.supported.split(", ")) {
      val (newest, old) = (ConsumerGroup.parse(config), ConsumerGroup.parse(config, version = ServerVersion.parse(line)))
      for (i <- 0 until 50) assert(old.partition(s"orders.eu.c$i") == newest.partition(s"orders.eu.c$i"), line)
    }
  }

  test("a filter without * partitions over the whole subject, which 2.10 and 2.11 refuse in a stream source") {
    val config = """{"max_members": 7, "partitioning_filters": [{"filter": "orders.>"}]}"""
    for (line <- Seq("2.10", "2.11")) {
      val e = intercept[InvalidConsumerGroupException](ConsumerGroup.parse(config, version = ServerVersion.parse(line)))
      assert(e.getMessage.contains("{{Partition(7)}}"), e.getMessage)
    }
    for (line <- Seq("2.12", "2.14", "2.15"))
      assert(ConsumerGroup.parse(config, version = ServerVersion.parse(line)).partition(
        "orders.a") == ConsumerGroup.parse(config).partition("orders.a"))
  }

  test("a group survives Java serialization, as Spark ships it to executors (its kind too, on Scala 2.12)") {
    for (config <- Seq(
        """{"max_members": 3, "members": ["a", "b"], "partitioning_filters": [{"filter": "o.*", "partitioning_wildcards": [1]}]}""",
        """{"max_members": 2, "filters": ["p.>"], "members": ["a"]}""")) {
      val group = ConsumerGroup.parse(config)
      val bytes = new ByteArrayOutputStream()
      val out = new ObjectOutputStream(bytes)
      out.writeObject(group)
      out.close()
      val copy =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)).readObject().asInstanceOf[ConsumerGroup]
      assert(copy.kind == group.kind)
      for (s <- Seq("o.x", "o.y", "0.p.q", "1.p.r")) assert(copy.partition(s) == group.partition(s), s)
    }
  }
}
