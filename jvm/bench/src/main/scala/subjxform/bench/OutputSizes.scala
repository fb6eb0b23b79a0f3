package subjxform.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import subjxform.engine.Workspace

/**
 * For each benchmark case, the mean size of the result over the sample subjects and what a byte
 * array of that size takes on the heap (16-byte header, 8-byte alignment: 64-bit JVM, compressed
 * oops): what JMH's `-prof gc` bytes/op should be if the result is the only allocation.
 * Writes `name<TAB>mean output bytes<TAB>mean array bytes` to the file given (or prints it).
 */
object OutputSizes {
  def main(args: Array[String]): Unit = {
    val subjects = BenchFiles.subjects()
    val ws = new Workspace(42L)
    val lines = BenchFiles.cases().map(_._1).sorted.map { name =>
      val work = BenchFiles.work(name, ws)
      var out = 0L
      var heap = 0L
      for (s <- subjects) {
        val r = work(s)
        if (r != null) { out += r.length; heap += (16 + r.length + 7) / 8 * 8 }
      }
      f"$name\t${out.toDouble / subjects.length}%.1f\t${heap.toDouble / subjects.length}%.1f"
    }
    val text = lines.mkString("", "\n", "\n")
    if (args.isEmpty) print(text) else Files.write(Paths.get(args(0)), text.getBytes(UTF_8))
  }
}
