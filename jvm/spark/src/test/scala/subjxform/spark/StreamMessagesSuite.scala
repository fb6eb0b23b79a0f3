package subjxform.spark

import java.nio.file.{Files, Paths}

import org.apache.spark.sql.SparkSession
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import subjxform.core.InvalidStreamConfigException

/** The Scala stream API over the docs page's orders example (expected rows reasoned from the docs). */
class StreamMessagesSuite extends AnyFunSuite with BeforeAndAfterAll {

  lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .appName("subjxform-streams")
    .config("spark.sql.codegen.fallback", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  private def config(name: String) = new String(Files.readAllBytes(Paths.get("tests", "streams", name)), "UTF-8")

  test("the orders example: ingress renames local orders, the source renames online ones, republish sees stored subjects") {
    import spark.implicits._
    val messages = Seq[(String, String)](
      ("orders.local.1", null), // direct, matches subjects: stored as orders.1
      ("orders.online.2", null), // direct, not in subjects: not stored
      ("orders.local.a.b", null), // direct, one token too many
      ("orders.online.3", "other_orders"), // sourced and renamed to orders.3; ingress does not match it
      ("orders.local.4", "other_orders"), // sourced stream, filter does not match
      ("orders.online.5", "elsewhere") // not a source of this stream
    ).toDF("subject", "stream")
    val out = StreamMessages(messages, config("docs_orders.json"), originCol = Some("stream"))
      .select("subject", "stream", StreamMessages.StoredSubject, StreamMessages.RepublishedSubject)
      .as[(String, String, String, String)].collect().toSet
    assert(out == Set(
      ("orders.local.1", null, "orders.1", "orders.trace.1"),
      ("orders.online.3", "other_orders", "orders.3", "orders.trace.3")))
  }

  test("an invalid config is rejected before any data is read, naming the field") {
    val e = intercept[InvalidStreamConfigException] {
      StreamMessages(spark.emptyDataFrame, """{"name": "M", "subjects": ["m"], "mirror": {"name": "A"}}""")
    }
    assert(e.field == "subjects" && e.description == "stream mirrors can not contain subjects")
  }
}
