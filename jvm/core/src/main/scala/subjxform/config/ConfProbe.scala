package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.mutable

import subjxform.engine.JsonWriter

/**
 * What [[ConfSyntax]] makes of documents, printed as tests/conf_oracle prints what nats-server's `conf`
 * package makes of them, for the differential test (tests/conf_differential.py), which starts one JVM for
 * all its documents: `java -cp JAR subjxform.config.ConfProbe`. Input, one JSON document a line: `{"id",
 * "text": base64, "files": {path: base64}, "env": {name: value}}`. Output: `{"id", "text": {"loose",
 * "strict"}, "file": {"loose", "strict"}}` ("file" only with files or env), each `{"ok", "error": hex,
 * "value", "braces": line}`: "loose" reads an unquoted `{{` as nats-server does and says where the first
 * one was ("braces"), "strict" refuses it (SPEC §4). Values as the oracle writes them (hex bytes, the
 * bits of a float, every value's line "l" and column "c", "u" for a used variable, "src" for its file).
 */
object ConfProbe {
  import ConfValue._

  def main(args: Array[String]): Unit = {
    // Values are written recursively (a test of nesting reads 10,000 levels): a thread with room for that.
    val worker = new Thread(null, () => answer(), "conf-probe", 1L << 30)
    worker.start()
    worker.join()
  }

  private def answer(): Unit = {
    val in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, UTF_8))
    val out = new java.io.PrintStream(new java.io.BufferedOutputStream(System.out, 1 << 16), false, "UTF-8")
    var line = in.readLine()
    while (line != null) {
      out.println(probe(line))
      if (!in.ready()) out.flush() // the writer waits for these answers before it sends more
      line = in.readLine()
    }
    out.flush()
  }

  private def probe(json: String): String = {
    val doc = ConfJson.parse(json).get.asInstanceOf[Obj]
    def bytes(v: ConfValue) = java.util.Base64.getDecoder.decode(v.asInstanceOf[Str].value)
    val text = bytes(doc.get("text").get)
    val files = doc.get("files").collect { case o: Obj => o.entries.map { case (k, v) => k -> bytes(v) } }.getOrElse(Nil)
    val env = doc.get("env").collect { case o: Obj => o.entries.map { case (k, v) => k -> v.asInstanceOf[Str].value } }
      .getOrElse(Nil).toMap
    def asText(strict: Boolean) = {
      var reader: ConfReader = null
      // Through a Java String and back, as the entry points read a text (GoBytes keeps every byte).
      result(folder = "", fileOf = _ => "", unquotedBraces = () => if (reader == null) 0 else reader.unquotedBracesLine) {
        reader = new ConfReader(GoBytes.encode(GoBytes.decode(text)), "", null, mutable.Set.empty, ".", strict)
        reader.document()
      }
    }
    val id = doc.get("id").collect { case Integer(n, _) => n }.getOrElse(0L)
    val textPart = s"""{"loose":${asText(strict = false)},"strict":${asText(strict = true)}}"""
    val filePart = if (files.isEmpty && env.isEmpty) "" else s""","file":${withFiles(text, files, env)}"""
    s"""{"id":$id,"text":$textPart$filePart}"""
  }

  /** The document as a file (main.conf in a fresh folder, with its files) and the given environment. */
  private def withFiles(text: Array[Byte], files: Seq[(String, Array[Byte])], env: Map[String, String]): String = {
    val folder = java.nio.file.Files.createTempDirectory("conf-probe-")
    try {
      for ((name, content) <- files) {
        val path = folder.resolve(name)
        java.nio.file.Files.createDirectories(path.getParent)
        java.nio.file.Files.write(path, content)
      }
      val main = folder.resolve("main.conf")
      java.nio.file.Files.write(main, text)
      def asFile(strict: Boolean) = {
        val file = new ConfFile(main.toString, env.get)
        file.refuseUnquotedBraces = strict
        result(folder.toString, file.fileOf, () => file.unquotedBracesLine)(file.read(main.toString))
      }
      s"""{"loose":${asFile(strict = false)},"strict":${asFile(strict = true)}}"""
    } finally deleteAll(folder)
  }

  private def deleteAll(p: java.nio.file.Path): Unit = {
    if (java.nio.file.Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      val children = java.nio.file.Files.list(p)
      try children.toArray.foreach(c => deleteAll(c.asInstanceOf[java.nio.file.Path]))
      finally children.close()
    }
    java.nio.file.Files.deleteIfExists(p)
  }

  private def result(folder: String, fileOf: ConfValue => String, unquotedBraces: () => Int)(read: => Obj): String = {
    def relative(s: String) = if (folder.isEmpty) s else s.replace(folder + "/", "").replace(folder, ".")
    try {
      val root = read
      s"""{"ok":true,"value":${value(root, used = false, v => relative(fileOf(v)), top = true)},""" +
        s""""braces":${unquotedBraces()}}"""
    } catch {
      case e: ConfSyntaxException =>
        s"""{"ok":false,"error":"${hex(GoBytes.encode(relative(e.getMessage)))}","braces":${unquotedBraces()}}"""
    }
  }

  private def value(v: ConfValue, used: Boolean, src: ConfValue => String, top: Boolean = false): String = {
    val typed = v match {
      case Str(s, _, _) => s""""s":"${hex(GoBytes.encode(s))}""""
      case Integer(n, _) => s""""i":"$n""""
      case Decimal(d, _) => s""""f":"${java.lang.Long.toHexString(java.lang.Double.doubleToRawLongBits(d))}""""
      case Bool(b, _) => s""""b":$b"""
      case DateTime(s, _) => s""""t":${JsonWriter.quote(s)}"""
      case Null(_) => """"null":true"""
      case Arr(items, _) => items.map(value(_, used = false, src)).mkString(""""a":[""", ",", "]")
      case o: Obj =>
        o.entries.map { case (k, x) => s"""["${hex(GoBytes.encode(k))}",${value(x, o.usedVariables(k), src)}]""" }
          .mkString(""""m":[""", ",", "]")
    }
    if (top) s"{$typed}"
    else s"""{$typed,"l":${v.line},"c":${v.column},"u":$used,"src":${JsonWriter.quote(src(v))}}"""
  }

  private def hex(b: Array[Byte]): String = {
    val sb = new java.lang.StringBuilder(b.length * 2)
    b.foreach(x => sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16)))
    sb.toString
  }
}
