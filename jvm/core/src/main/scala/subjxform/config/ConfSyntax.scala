package subjxform.config

import scala.collection.mutable

/**
 * Reads nats-server's configuration syntax into [[ConfValue]]s exactly as nats-server 2.15's `conf` package
 * reads it (the way the server loads a file, `ParseWithChecks`): the same verdict, the same values (int64,
 * float64, string as bytes, bool, date; sizes, variables, includes) and its error texts. A document that is
 * also valid JSON is still read by these rules, as nats-server reads it (`1e5` is the string "1e5", a unicode escape
 * an error). tests/conf_oracle compares it, and the portable path's reader, with the Go package on generated
 * documents. The deliberate differences (docs/concepts/differences.md): an unquoted value holding `{{` is
 * refused (nats-server cuts it at its first `}`), lists and maps nest at most [[MaxDepth]] deep, an include
 * at most 32 deep, and a config read as text reads no files and no environment variables.
 *
 * Its pieces, each in its file: [[ConfValue]] (the values), [[ConfLexer]] (the lexer, over UTF-8 bytes),
 * [[ConfScalars]] (Go's number and date rules), [[ConfReader]] (maps, lists, `$name` and `include`),
 * [[ConfFile]] (included files and the environment), [[GoBytes]] (Go's strings in Java's), [[ConfJson]]
 * (strict JSON, for what nats reads as JSON: stream configs, JWT claims). The portable path's reader
 * (python/src/subjxform/portable/_confsyntax.py) has the same pieces but the files (it reads none).
 */
object ConfSyntax {
  import ConfValue._

  /**
   * How deep lists and maps may nest, the document's own map included: 10,000, where nats-server stops
   * loading a file (its parser has no limit, but the digest it takes of the config is JSON, whose writer
   * stops there): `nats-server -t` accepts `foo: [[...]]` 9,999 lists deep and rejects 10,000 ("json: error
   * calling MarshalJSON ...: exceeded max depth"). Ours says so naming the line. No mappings table or
   * stream config comes near (they nest 3 or 4 deep). The reader keeps its own stacks, so the depth is
   * bounded by this, not by the thread's stack.
   */
  final val MaxDepth = 10000

  private[config] def tooDeep(line: Int): ConfSyntaxException =
    new ConfSyntaxException(s"Parse error on line $line: 'lists and maps nested more than $MaxDepth deep'")

  /** A mappings block: its content, or `mappings { ... }` pasted whole (then the block inside). */
  def parseMappings(text: String): Obj = unwrapMappingsKey(parseDocument(text))

  /**
   * A whole document as it is written, nothing unwrapped: a nats-server configuration (its top-level keys,
   * `accounts`, ...) or a mappings block. Read as text: `include` and environment variables are errors.
   */
  def parseDocument(text: String): Obj = read(GoBytes.encode(text))

  private[config] def read(bytes: Array[Byte], refuseUnquotedBraces: Boolean = true): Obj =
    new ConfReader(bytes, "", null, mutable.Set.empty, ".", refuseUnquotedBraces).document()

  /**
   * A document nats reads as JSON (a stream config, a consumer group's config, JWT claims: Go's
   * `encoding/json`), else, when it is not JSON, in the configuration syntax.
   */
  def parseJson(text: String): Obj =
    ConfJson.parse(text) match {
      case Some(o: Obj) => o
      case Some(other) => throw new ConfSyntaxException(s"expected a JSON object, not ${ConfValue.goText(other)}")
      case None => parseDocument(text)
    }

  /** The text as strict JSON (Go's `encoding/json`), when it is a JSON object; None when it is not JSON. */
  def jsonObject(text: String): Option[Obj] = ConfJson.parse(text).collect { case o: Obj => o }

  /**
   * A configuration file as nats-server reads it (`conf.ParseFileWithChecks`): `include PATH` reads PATH
   * joined to the including file's folder (as its own document: it sees none of the including file's
   * variables) and `$NAME` is a variable of the config in scope, else the environment variable NAME (`env`),
   * read as a config value. [[ConfFile.fileOf]] tells which file a value was written in, for messages that
   * give a file and a line.
   *
   * @param name the file's path as given (nats-server's messages use it so)
   */
  def parseFile(name: String, env: String => Option[String]): ConfFile = {
    val file = new ConfFile(name, env)
    file.root = file.read(name)
    file
  }

  /**
   * [[parseFile]] for a text already read (stdin, a SQL argument): `include` is relative to `name`'s folder.
   * `collectUnquotedBraces`: an unquoted value holding `{{` does not stop the read; each is one of the file's
   * [[ConfFile.unquotedBraces]] (a check that reports every problem at once).
   */
  def parseText(text: String, name: String, env: String => Option[String],
      collectUnquotedBraces: Boolean = false): ConfFile = {
    val file = new ConfFile(name, env)
    file.collectUnquotedBraces = collectUnquotedBraces
    file.root = file.parse(text, name)
    file
  }

  /** `mappings { ... }` / `mappings = {...}` pasted whole is the block itself. */
  private def unwrapMappingsKey(o: Obj): Obj = o.entries match {
    case Vector((k, inner: Obj)) if k.equalsIgnoreCase("mappings") => inner
    case _ => o
  }
}
