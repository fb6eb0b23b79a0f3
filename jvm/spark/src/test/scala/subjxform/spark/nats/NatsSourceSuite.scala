package subjxform.spark.nats

import java.io.File
import java.net.{ServerSocket, Socket}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.util.Try

import io.nats.client.{Connection, Nats}
import io.nats.client.api.{StorageType, StreamConfiguration}
import io.nats.client.impl.{Headers, NatsMessage}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.streaming.Trigger
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/**
 * The nats source and sink against a real nats-server (the newest line's, from scripts/setup.sh), on every Spark
 * line: what can differ between lines is the connector API, the catalog's CREATE TABLE and the streaming engine.
 */
class NatsSourceSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val root = new File(sys.props.getOrElse("subjxform.root", "."))
  private val binary = new File(root, ".tools/nats-server/2.15/bin/nats-server")
  private val store = Files.createTempDirectory("subjxform-nats-suite").toFile
  private val port = {
    val s = new ServerSocket(0);
    try s.getLocalPort
    finally s.close()
  }
  private val url = s"nats://127.0.0.1:$port"
  private var server: Process = _
  private var nats: Connection = _
  private val count = 2000

  lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .appName("subjxform-nats-source")
    .getOrCreate()

  private def published(i: Int): (String, Array[Byte], Option[Map[String, Seq[String]]]) =
    (s"orders.${Seq("eu", "us")(i % 2)}.c${i % 13}", Array.tabulate(i % 30)(k => (k * 7 + i).toByte),
      if (i % 3 == 0) Some(Map("X-Tag" -> Seq(s"t$i", "two"))) else None)

  override def beforeAll(): Unit = {
    assume(binary.canExecute, s"no nats-server at $binary: run scripts/setup.sh")
    server = new ProcessBuilder(binary.getPath, "-js", "-a", "127.0.0.1", "-p", port.toString, "-sd", store.getPath)
      .redirectErrorStream(true).redirectOutput(new File(store, "server.log")).start()
    val deadline = System.nanoTime + 20e9.toLong
    while (Try(new Socket("127.0.0.1", port).close()).isFailure) {
      assert(System.nanoTime < deadline, "nats-server did not start")
      Thread.sleep(50)
    }
    nats = Nats.connect(url)
    val jsm = nats.jetStreamManagement()
    jsm.addStream(StreamConfiguration.builder().name("ORDERS").subjects("orders.>").storageType(StorageType.File).build())
    jsm.addStream(StreamConfiguration.builder().name("COPY").subjects("copy.>").storageType(StorageType.File).build())
    val js = nats.jetStream()
    for (i <- 0 until count) {
      val (subject, data, headers) = published(i)
      val b = NatsMessage.builder().subject(subject).data(data)
      headers.foreach { h =>
        val hs = new Headers()
        h.foreach { case (k, vs) => vs.foreach(v => hs.add(k, v)) }
        b.headers(hs)
      }
      js.publish(b.build())
    }
  }

  override def afterAll(): Unit = {
    Try(spark.stop())
    Try(nats.close())
    if (server != null) { server.destroy(); server.waitFor() }
    delete(store)
  }

  private def delete(dir: File): Unit = {
    Option(dir.listFiles).foreach(_.foreach(f => if (f.isDirectory) delete(f) else f.delete()))
    dir.delete()
  }

  private def read(options: (String, String)*) =
    spark.read.format("nats").option("servers", url).option("stream", "ORDERS").options(options.toMap).load()

  test("a stream reads back as the server stored it: subjects, bytes, headers, sequences, timestamps") {
    val rows = read("partitions" -> "3").orderBy("streamSeq").collect()
    assert(rows.length == count)
    val jsm = nats.jetStreamManagement()
    for ((row, i) <- rows.zipWithIndex) {
      val (subject, data, headers) = published(i)
      assert(row.getAs[Long]("streamSeq") == i + 1)
      assert(row.getAs[String]("subject") == subject)
      assert(row.getAs[Array[Byte]]("content").sameElements(data))
      assert(Option(row.getAs[scala.collection.Map[String, scala.collection.Seq[String]]]("headers"))
        .map(_.map { case (k, v) => k -> v.toList }.toMap) == headers.map(_.map { case (k, v) => k -> v.toList }))
      if (i % 50 == 0) { // the server's time of a sample (a request each)
        val stored = jsm.getMessage("ORDERS", i + 1L).getTime.toInstant
        val ts = row.getAs[java.sql.Timestamp]("timestamp")
        assert(ts.getTime / 1000 * 1000000L + ts.getNanos / 1000 % 1000000 ==
            stored.getEpochSecond * 1000000L + stored.getNano / 1000, i)
      }
      assert(row.getAs[String]("stream") == "ORDERS" && row.isNullAt(row.fieldIndex("replyTo")))
    }
    assert(jsm.getConsumerNames("ORDERS").isEmpty, "a read left a consumer on the server")
  }

  test("filters on subject, streamSeq and timestamp narrow the consumers; Spark still applies them") {
    val df = read().where("subject IN ('orders.eu.c2', 'orders.us.c3') AND streamSeq > 100 AND streamSeq <= 1500")
    val scan = df.queryExecution.executedPlan.toString
    assert(scan.contains("filter_subjects [orders.eu.c2, orders.us.c3]") && scan.contains("start AtSequence(101)") &&
        scan.contains("end AtSequence(1500)"), scan)
    val want =
      (0 until count).filter(i => Set("orders.eu.c2", "orders.us.c3")(published(i)._1) && i + 1 > 100 && i + 1 <= 1500)
    assert(df.select("streamSeq").collect().map(_.getLong(0)).sorted.toSeq == want.map(_ + 1L))
    assert(read().where("subject LIKE 'orders.eu.%'").count() == (0 until count).count(_ % 2 == 0))
  }

  test("a streaming query reads on from its checkpoint: every message once, across restarts") {
    val work = Files.createTempDirectory("subjxform-nats-stream").toFile
    try {
      def run(): Unit = {
        val q = spark.readStream.format("nats").option("servers", url).option("stream", "ORDERS")
          .option("maxMessagesPerTrigger", "300").load().select("streamSeq", "subject")
          .writeStream.format("parquet").option("checkpointLocation", new File(work, "cp").getPath)
          .trigger(Trigger.AvailableNow()).start(new File(work, "out").getPath)
        q.awaitTermination()
      }
      run()
      run() // nothing new: no message twice
      nats.jetStream().publish("orders.eu.new", "late".getBytes(UTF_8))
      run()
      val seqs = spark.read.parquet(new File(work, "out").getPath).collect().map(_.getLong(0)).sorted.toSeq
      assert(seqs == (1L to count + 1L))
    } finally delete(work)
  }

  test("the writer publishes with acknowledgements; Nats-Msg-Id makes a second write store nothing") {
    val rows = read("end_sequence" -> "100").selectExpr("concat('copy.', subject) AS subject", "content",
      "cast(streamSeq AS STRING) AS id")
    for (_ <- 1 to 2)
      rows.write.format("nats").mode("append").option("servers", url).option("stream", "COPY")
        .option("msg_id_column", "id").save()
    assert(nats.jetStreamManagement().getStreamInfo("COPY").getStreamState.getMsgCount == 100)
  }

  test("CREATE TABLE ... USING nats OPTIONS (...) reads the stream") {
    spark.sql("DROP TABLE IF EXISTS nats_orders")
    spark.sql(s"CREATE TABLE nats_orders USING nats OPTIONS (servers '$url', stream 'ORDERS')")
    try assert(spark.sql("SELECT count(*) FROM nats_orders WHERE subject = 'orders.eu.c0'").collect().head.getLong(0) ==
        (0 until count).count(i => published(i)._1 == "orders.eu.c0"))
    finally spark.sql("DROP TABLE IF EXISTS nats_orders")
  }

  test("a wrong stream, an unreachable server, a bad option: errors that name the option") {
    def error(options: (String, String)*): String =
      intercept[Exception](read(options: _*).count()).getMessage
    assert(error("stream" -> "NOPE").contains("nats option 'stream': no stream 'NOPE'"))
    assert(
      error("servers" -> "nats://127.0.0.1:1").contains("nats option 'servers': cannot connect to nats://127.0.0.1:1"))
    assert(error("end_time" -> "soon").contains("nats option 'end_time': 'soon' is not a time with a zone"))
  }
}
