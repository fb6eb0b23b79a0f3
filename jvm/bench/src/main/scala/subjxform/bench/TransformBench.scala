package subjxform.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}
import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._

import org.openjdk.jmh.annotations._

import subjxform.core.{SubjectTransform, Workspace}

/**
 * The Spark-free engine, one compiled transform per case of `bench/cases.tsv`, applied to the
 * subjects of `bench/subjects-sample.txt` in turn (the same cases and subjects a Go benchmark of
 * nats-server's TransformSubject is run on, separately). Run with `-prof gc` for bytes/op: the
 * result array should be the only allocation.
 */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = Array("-Xms1g", "-Xmx1g"))
class TransformBench {

  @Param(Array(
    "reorder", "partition", "prefix", "split_slice",
    "fn_wildcard", "fn_partition_tokens", "fn_partition_subject", "fn_split", "fn_splitfromleft",
    "fn_splitfromright", "fn_slicefromleft", "fn_slicefromright", "fn_left", "fn_right",
    "fn_literal_only", "no_match"))
  var name: String = _

  private var transform: SubjectTransform = _
  private var subjects: Array[Array[Byte]] = _
  private val ws = new Workspace(42L)
  private var next = 0

  @Setup
  def setup(): Unit = {
    val cases = BenchFiles.cases()
    val (src, dest) = cases.getOrElse(name, throw new IllegalArgumentException(s"no case $name in cases.tsv"))
    transform = SubjectTransform.compile(src, dest)
    subjects = BenchFiles.subjects()
  }

  /** One subject transformed; subjects cycle so branch prediction sees the real mix. */
  @Benchmark
  def apply(): Array[Byte] = {
    val s = subjects(next)
    next += 1
    if (next == subjects.length) next = 0
    transform(s, 0, s.length, ws)
  }
}

/** The floor: the same loop copying each subject into a new exactly sized array. */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = Array("-Xms1g", "-Xmx1g"))
class CopyFloorBench {
  private var subjects: Array[Array[Byte]] = _
  private var next = 0

  @Setup
  def setup(): Unit = subjects = BenchFiles.subjects()

  @Benchmark
  def copy(): Array[Byte] = {
    val s = subjects(next)
    next += 1
    if (next == subjects.length) next = 0
    java.util.Arrays.copyOf(s, s.length)
  }
}

object BenchFiles {
  /** `bench/` of the repository: -Dsubjxform.bench.dir, else found from the working directory up. */
  def dir: Path = {
    sys.props.get("subjxform.bench.dir").map(Paths.get(_)).getOrElse {
      var d = Paths.get("").toAbsolutePath
      while (d != null && !Files.isRegularFile(d.resolve("bench/cases.tsv"))) d = d.getParent
      if (d == null) throw new IllegalStateException("bench/cases.tsv not found above the working directory")
      d.resolve("bench")
    }
  }

  def cases(): Map[String, (String, String)] =
    Files.readAllLines(dir.resolve("cases.tsv"), UTF_8).asScala.iterator
      .filter(l => l.nonEmpty && !l.startsWith("#"))
      .map { l => val f = l.split("\t", -1); f(0) -> (f(1), f(2)) }
      .toMap

  def subjects(): Array[Array[Byte]] =
    Files.readAllLines(dir.resolve("subjects-sample.txt"), UTF_8).asScala.iterator
      .filter(_.nonEmpty).map(_.getBytes(UTF_8)).toArray
}
