package subjxform.config

/**
 * Reads the body of a nats-server `mappings { ... }` block (or the block with its braces, or JSON)
 * into [[ConfValue]]s, accepting what nats-server 2.15's configuration lexer accepts and reading it
 * the same way: keys quoted or bare; `=`, `:` or white space before a value; values ended by a new
 * line, `,` or `;`; `#` and `//` comments; bare strings; numbers with size suffixes (`1k`); a number
 * followed by other characters (`98%`) is a bare string. Tests compare this reader with the
 * nats-server binary. Compile time only: nothing here runs per row.
 *
 * Its pieces, each in its file: [[ConfValue]] (the values), [[ConfScanner]] (the cursor and character
 * classes), [[ConfScalars]] (strings and numbers), [[ConfReader]] (maps, lists, `$name` and `include`),
 * [[ConfFile]] (included files and the environment), [[ConfJson]] (strict JSON). The portable path's reader
 * (python/src/subjxform/portable/_confsyntax.py) has the same pieces but the files (it reads none):
 * `_Scanner`, `_Scalars`, `_Reader` and its JSON reader.
 */
object ConfSyntax {
  import ConfValue._

  /**
   * How deep lists and maps may nest, in either syntax, the document's own map included: 10,000, the
   * limit of Go's `encoding/json`, where nats-server stops too. It reads stream configs (every JSON
   * request) with it, and its config-file parser, which has no limit of its own (its stacks are slices),
   * hands the result to it: `nats-server -t` accepts `foo: [[...]]` 9,999 lists deep and rejects 10,000
   * ("json: error calling MarshalJSON ...: exceeded max depth"). Ours says so naming the line. No
   * mappings table or stream config comes near (they nest 3 or 4 deep). Both readers keep their own
   * stack, so the depth is bounded by this, not by the thread's stack.
   */
  final val MaxDepth = 10000

  private[config] def tooDeep(line: Int): ConfSyntaxException =
    new ConfSyntaxException(s"Parse error on line $line: 'lists and maps nested more than $MaxDepth deep'")

  /** JSON first (it has escapes like `\u00e9` nats-server's lexer lacks); otherwise nats-server syntax. */
  def parseMappings(text: String): Obj =
    ConfJson.parse(text) match {
      case Some(o: Obj) => unwrapMappingsKey(o)
      case Some(other) =>
        throw new ConfSyntaxException(s"the mappings must be a JSON object, not ${ConfValue.goText(other)}")
      case None => unwrapMappingsKey(new ConfReader(text).document())
    }

  /**
   * A whole document as it is written, nothing unwrapped: JSON (a stream config, a mappings table) or
   * a nats-server configuration file (its top-level keys, `accounts`, ...). `include` is not followed.
   */
  def parseDocument(text: String): Obj = parseDocument(text, null)

  private[subjxform] def parseDocument(text: String, file: ConfFile): Obj =
    ConfJson.parse(text) match {
      case Some(o: Obj) => o
      case Some(other) => throw new ConfSyntaxException(s"expected a JSON object, not ${ConfValue.goText(other)}")
      case None => new ConfReader(text, file).document()
    }

  /**
   * A configuration file as nats-server reads it (`conf.ParseFile`): JSON, or its configuration syntax
   * where `include PATH` reads PATH relative to the including file (as its own document: it sees none
   * of the including file's variables) and `$NAME` is a variable of the config in scope, else the
   * environment variable NAME (`env`), read as a config value. [[ConfFile.fileOf]] tells which file a
   * value was written in, for messages that give a file and a line.
   *
   * @param name the file's name in messages (as given: nats-server's messages use the path as given)
   */
  def parseFile(name: String, env: String => Option[String]): ConfFile = {
    val file = new ConfFile(name, env)
    file.root = file.read(name)
    file
  }

  /** [[parseFile]] for a text already read (stdin, a SQL argument): `include` is relative to `name`'s folder. */
  def parseText(text: String, name: String, env: String => Option[String]): ConfFile = {
    val file = new ConfFile(name, env)
    file.root = file.parse(text, name)
    file
  }

  /** `mappings { ... }` / `mappings = {...}` pasted whole is the block itself. */
  private def unwrapMappingsKey(o: Obj): Obj = o.entries match {
    case Vector((k, inner: Obj)) if k.equalsIgnoreCase("mappings") => inner
    case _ => o
  }
}
