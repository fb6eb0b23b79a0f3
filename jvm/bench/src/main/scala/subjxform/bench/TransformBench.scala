package subjxform.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}
import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._

import org.openjdk.jmh.annotations._

import subjxform.engine.{SubjectTransform, Workspace}

/**
 * The Spark-free engine, one compiled transform per case of `bench/cases.tsv`, applied to the
 * subjects of `bench/subjects-sample.txt` in turn (the same cases and subjects a Go benchmark of
 * nats-server's TransformSubject is run on, separately), beside the floor `copy_floor`: the same loop
 * copying each subject into a new exactly sized array. Run with `-prof gc` for bytes/op: the result
 * array should be the only allocation.
 */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = Array("-Xms1g", "-Xmx1g"))
class TransformBench {

  // JMH wants the values spelled out here: BenchFiles.work refuses a name cases.tsv does not have.
  @Param(Array(
      BenchFiles.CopyFloor, "reorder", "partition", "prefix", "split_slice",
      "fn_wildcard", "fn_partition_tokens", "fn_partition_subject", "fn_split", "fn_splitfromleft",
      "fn_splitfromright", "fn_slicefromleft", "fn_slicefromright", "fn_left", "fn_right",
      "fn_literal_only", "no_match"))
  var name: String = _

  private var work: Array[Byte] => Array[Byte] = _
  private var subjects: Array[Array[Byte]] = _
  private var next = 0

  @Setup
  def setup(): Unit = {
    work = BenchFiles.work(name, new Workspace(42L))
    subjects = BenchFiles.subjects()
  }

  /** One subject transformed; subjects cycle so branch prediction sees the real mix. */
  @Benchmark
  def apply(): Array[Byte] = {
    val s = subjects(next)
    next += 1
    if (next == subjects.length) next = 0
    work(s)
  }
}

object BenchFiles {

  /** The floor every case is measured against: copy the subject into a new exactly sized array. */
  final val CopyFloor = "copy_floor"

  /** `bench/` of the repository: -Dsubjxform.bench.dir, else found from the working directory up. */
  def dir: Path = {
    sys.props.get("subjxform.bench.dir").map(Paths.get(_)).getOrElse {
      var d = Paths.get("").toAbsolutePath
      while (d != null && !Files.isRegularFile(d.resolve("bench/cases.tsv"))) d = d.getParent
      if (d == null) throw new IllegalStateException("bench/cases.tsv not found above the working directory")
      d.resolve("bench")
    }
  }

  /** The cases of `cases.tsv` in file order: name -> (src, dest). */
  def cases(): Seq[(String, (String, String))] =
    Files.readAllLines(dir.resolve("cases.tsv"), UTF_8).asScala.toSeq
      .filter(l => l.nonEmpty && !l.startsWith("#"))
      .map { l =>
        val f = l.split("\t", -1); f(0) -> (f(1), f(2))
      }

  /** A case's compiled transform. */
  def transform(name: String): SubjectTransform = {
    val (src, dest) = cases().toMap.getOrElse(name, throw new IllegalArgumentException(s"no case $name in cases.tsv"))
    SubjectTransform.compile(src, dest)
  }

  /** What one operation of case `name` does to a subject: the floor's copy, or the case's transform in `ws`. */
  def work(name: String, ws: Workspace): Array[Byte] => Array[Byte] =
    if (name == CopyFloor) s => java.util.Arrays.copyOf(s, s.length)
    else {
      val tr = transform(name)
      s => tr(s, 0, s.length, ws)
    }

  def subjects(): Array[Array[Byte]] =
    Files.readAllLines(dir.resolve("subjects-sample.txt"), UTF_8).asScala.iterator
      .filter(_.nonEmpty).map(_.getBytes(UTF_8)).toArray
}
