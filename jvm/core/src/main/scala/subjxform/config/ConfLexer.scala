package subjxform.config

/**
 * The lexer of nats-server's configuration syntax, as its `conf` package (v2.15.1) reads a document:
 * over the document's UTF-8 bytes (Go's strings are bytes: a `\xHH` escape adds one raw byte, an invalid
 * byte is read as U+FFFD one byte wide, and a NUL is read as the end of the text), one state at a time,
 * with a stack of the states to return to once a value, a comment or a block ends. Its states are Go's,
 * because nats-server's verdict on an odd text lives in which state meets which character: a `//` after
 * a value, a `}` after a key, a NUL inside a quoted key all read differently depending on where they
 * are. [[ConfReader]] turns the items into values; the differential test (tests/conf_oracle) compares
 * both with the Go package on generated documents.
 */
private[config] final class ConfLexer(input: Array[Byte]) {
  import ConfLexer._

  private var start = 0
  private var pos = 0
  private var width = 0
  private var line = 1
  private var lineStart = 0 // where the line of `pos` starts (the index of its '\n')
  private var itemLineStart = 0 // lineStart when the last item was emitted: item positions count from it
  private var state = Top
  private var stack = new Array[Int](16) // states to return to, innermost last
  private var depth = 0
  private var stringParts: java.io.ByteArrayOutputStream = null // escaped pieces of the string being read
  private var stringState = BareString // the state an escape returns to
  private var pending: Item = null

  /** The next item; after an [[Item.Eof]] or an [[Item.Error]] there are none. */
  def nextItem(): Item = {
    while (pending == null) state = step(state)
    val it = pending
    pending = null
    it
  }

  // ---------------------------------------------------------------------------------------------
  // The cursor, as Go's: `next` reads a rune (0 at the end, and for a NUL byte), `backup` undoes one.

  private def next(): Int = {
    if (pos >= input.length) { width = 0; return Eof }
    if (input(pos) == '\n') { line += 1; lineStart = pos }
    val r = decodeRune(input, pos)
    width = r >>> 24
    pos += width
    r & 0xffffff
  }

  private def backup(): Unit = {
    pos -= width
    if (pos < input.length && input(pos) == '\n') line -= 1
  }

  private def peek(): Int = { val r = next(); backup(); r }

  /**
   * Reads on over the bytes the current state would read one by one without stopping (none of `stops`: the
   * bytes that end the run, or may), counting the new lines it passes as `next` does.
   */
  private def skipTo(stops: Array[Boolean]): Unit = {
    var p = pos
    while (p < input.length && !stops(input(p) & 0xff)) {
      if (input(p) == '\n') { line += 1; lineStart = p }
      p += 1
    }
    pos = p
  }

  private def ignore(): Unit = { start = pos; itemLineStart = lineStart }

  private def push(s: Int): Unit = {
    if (depth == stack.length) stack = java.util.Arrays.copyOf(stack, depth * 2)
    stack(depth) = s
    depth += 1
  }

  private def pop(): Int =
    if (depth == 0) error("BUG in lexer: no states to pop.") else { depth -= 1; stack(depth) }

  private def emit(kind: Int): Unit = {
    val value =
      if (stringParts == null) java.util.Arrays.copyOfRange(input, start, pos)
      else { stringParts.write(input, start, pos - start); stringParts.toByteArray }
    pending = new Item(kind, value, line, pos - itemLineStart - value.length, pos, quoted = false)
    start = pos
    itemLineStart = lineStart
  }

  /** A string's value (its escaped pieces and the rest), after which no pieces are pending. */
  private def emitString(quoted: Boolean): Unit = {
    emit(Item.Str)
    pending.quoted = quoted
    stringParts = null
  }

  private def addCurrentStringPart(offset: Int): Unit = {
    if (stringParts == null) stringParts = new java.io.ByteArrayOutputStream
    stringParts.write(input, start, pos - offset - start)
    start = pos
  }

  private def addStringPart(b: Int): Int = {
    stringParts.write(b)
    start = pos
    stringState
  }

  private def error(message: String): Int = {
    pending = new Item(Item.Error, utf8(message), line, 0, pos, quoted = false)
    Stop
  }

  /** An error quoting the rune `r` as Go's `%v` does here (a new line as `\n`, the end as a NUL). */
  private def errorAt(format: String, r: Int*): Int =
    error(format.format(r.map(c => if (c == '\n') "\\n" else runeText(c)): _*))

  // ---------------------------------------------------------------------------------------------
  // The states: each reads what it needs and returns the next one.

  private def step(s: Int): Int = s match {
    case Top => top()
    case TopValueEnd => topValueEnd()
    case BlockStart => blockStart()
    case BlockValueEnd => blockValueEnd()
    case BlockEnd => blockEnd()
    case KeyStart => keyStart()
    case DqKey => quotedKey('"')
    case SqKey => quotedKey('\'')
    case Key => key()
    case KeyEnd => keyEnd()
    case IncludeStart => includeStart()
    case Include => include()
    case IncludeSq => includeQuoted('\'', "Unexpected EOF in quoted include")
    case IncludeDq => includeQuoted('"', "Unexpected EOF in double quoted include")
    case IncludeBare => includeBare()
    case Value => value()
    case ArrayValue => arrayValue()
    case ArrayValueEnd => arrayValueEnd()
    case ArrayEnd => ignore(); emit(Item.ArrayEnd); pop()
    case MapKeyStart => mapKeyStart()
    case MapSqKey => mapQuotedKey('\'', "Unexpected EOF processing quoted map key.")
    case MapDqKey => mapQuotedKey('"', "Unexpected EOF processing double quoted map key.")
    case MapKey => mapKey()
    case MapKeyEnd => mapKeyEnd()
    case MapValue => mapValue()
    case MapValueEnd => mapValueEnd()
    case MapEnd => ignore(); emit(Item.MapEnd); pop()
    case SqString => singleQuoted()
    case DqString => doubleQuoted()
    case BareString => bareString()
    case Block => block()
    case StringEscape => stringEscape()
    case StringBinary => stringBinary()
    case NumberStart => numberStart(Number)
    case Number => number()
    case SizedNumber => sizedNumber()
    case DateAfterYear => dateAfterYear()
    case NegNumberStart => numberStart(NegNumber)
    case NegNumber => negNumber()
    case FloatStart => floatStart()
    case Float => float()
    case IpAddr => ipAddr()
    case CommentStart => ignore(); emit(Item.Comment); Comment
    case Comment => comment()
    case Stop => throw new IllegalStateException("the lexer has stopped")
  }

  /** The end of the text where a state expects more: an error unless nothing was read since the last item. */
  private def endOfText(): Int =
    if (pos > start) error("Unexpected EOF.") else { emit(Item.Eof); Stop }

  /** After a `/`: a `//` comment (after which the state `back` reads on), else the lone `/` is read as `other`. */
  private def afterSlash(back: Int, other: => Int): Int = {
    if (next() == '/') { push(back); CommentStart }
    else { backup(); other }
  }

  private def top(): Int = {
    val r = next()
    if (isSpace(r)) { ignore(); return Top }
    r match {
      case '{' => push(Top); ignore(); BlockStart
      case '#' => push(Top); CommentStart
      case '/' => afterSlash(Top, endOfText())
      case Eof => endOfText()
      case _ => backup(); push(TopValueEnd); KeyStart
    }
  }

  private def topValueEnd(): Int = {
    val r = next()
    r match {
      case '#' => push(Top); CommentStart
      case '/' => afterSlash(Top, TopValueEnd)
      case ' ' | '\t' => TopValueEnd
      case '\n' | '\r' | Eof | ';' | ',' | '}' => ignore(); Top
      case _ => errorAt("Expected a top-level value to end with a new line, comment or EOF, but got '%s' instead.", r)
    }
  }

  private def blockStart(): Int = {
    val r = next()
    if (isSpace(r)) { ignore(); return BlockStart }
    r match {
      case '{' => push(BlockEnd); ignore(); BlockStart
      case '}' => ignore(); pop()
      case '#' => push(BlockStart); CommentStart
      case '/' => afterSlash(BlockStart, endOfText())
      case Eof => endOfText()
      case _ => backup(); push(BlockValueEnd); KeyStart
    }
  }

  private def blockValueEnd(): Int = {
    val r = next()
    r match {
      case '#' => push(BlockValueEnd); CommentStart
      case '/' => afterSlash(BlockValueEnd, BlockValueEnd)
      case ' ' | '\t' => BlockValueEnd
      case '\n' | '\r' | ';' | ',' => ignore(); BlockStart
      case '}' => backup(); BlockEnd
      case _ =>
        errorAt("Expected a block-level value to end with a new line, comment or EOF, but got '%s' instead.", r)
    }
  }

  private def blockEnd(): Int = {
    val r = next()
    r match {
      case '#' => push(BlockStart); CommentStart
      case '/' => afterSlash(BlockStart, BlockEnd)
      case '\n' | '\r' | ' ' | '\t' => BlockEnd
      case ';' | ',' => ignore(); BlockStart
      case '}' => ignore(); pop()
      case _ => errorAt("Expected a block-level to end with a '}', but got '%s' instead.", r)
    }
  }

  private def keyStart(): Int = {
    val r = peek()
    if (r == '=' || r == ':') errorAt("Unexpected key separator '%s'", r)
    else if (isSpace(r)) { next(); ignore(); KeyStart }
    else if (r == '"') { next(); ignore(); DqKey }
    else if (r == '\'') { next(); ignore(); SqKey }
    else { ignore(); next(); Key }
  }

  private def quotedKey(quote: Int): Int = {
    // Up to the closing quote: new lines are part of the key, a NUL is the end of the text.
    skipTo(if (quote == '"') DqKeyStops else SqStops)
    if (pos < input.length && input(pos) == quote) { emit(Item.Key); next(); ignore(); KeyEnd }
    else endOfText()
  }

  /** A key followed by white space: `include` (any case) starts an include, anything else is a key. */
  private def keyOrInclude(afterKey: Int, afterInclude: Int): Int =
    if (isInclude(input, start, pos)) {
      ignore()
      if (afterInclude != Stop) push(afterInclude)
      IncludeStart
    } else { emit(Item.Key); afterKey }

  private def key(): Int = {
    while (true) {
      skipTo(KeyStops)
      val r = peek()
      if (isSpace(r)) return keyOrInclude(KeyEnd, Stop)
      if (r == '=' || r == ':' || r == Eof) { emit(Item.Key); return KeyEnd }
      next()
    }
    Stop
  }

  private def keyEnd(): Int = {
    val r = next()
    if (isSpace(r)) { ignore(); KeyEnd }
    else if (r == '=' || r == ':') { ignore(); Value }
    else if (r == Eof) { emit(Item.Eof); Stop }
    else { backup(); Value }
  }

  private def includeStart(): Int = {
    val r = next()
    if (r == ' ' || r == '\t') { ignore(); IncludeStart }
    else { backup(); Include }
  }

  private def include(): Int = {
    val r = next()
    r match {
      case '\'' => ignore(); IncludeSq
      case '"' => ignore(); IncludeDq
      case '[' => error("Expected include value but found start of an array")
      case '{' => error("Expected include value but found start of a map")
      case '(' => error("Expected include value but found start of a block")
      case '-' => error("Expected include value but found start of a number")
      case '\\' => error("Expected include value but found escape sequence")
      case '\n' | '\r' => error("Expected include value but found new line")
      case _ if isDigit(r) => error("Expected include value but found start of a number")
      case _ => backup(); IncludeBare
    }
  }

  private def includeQuoted(quote: Int, eofMessage: String): Int = {
    val r = next()
    if (r == quote) { backup(); emit(Item.Include); next(); ignore(); pop() }
    else if (r == Eof) error(eofMessage)
    else if (quote == '"') IncludeDq
    else IncludeSq
  }

  private def includeBare(): Int = {
    val r = next()
    r match {
      case '\n' | '\r' | Eof | ';' | '}' | ' ' | '\t' => backup(); emit(Item.Include); pop()
      case '\'' => backup(); emit(Item.Include); next(); ignore(); pop()
      case _ => IncludeBare
    }
  }

  private def value(): Int = {
    val r = next()
    r match {
      case ' ' | '\t' => ignore(); Value
      case '[' => ignore(); emit(Item.ArrayStart); ArrayValue
      case '{' => ignore(); emit(Item.MapStart); MapKeyStart
      case '\'' => ignore(); SqString
      case '"' => ignore(); stringState = DqString; DqString
      case '-' => NegNumberStart
      case '(' => ignore(); Block
      case '.' => error("Floats must start with a digit")
      case '\n' | '\r' => error("Expected value but found new line")
      case _ if isDigit(r) => backup(); NumberStart
      case _ => backup(); stringState = BareString; BareString
    }
  }

  private def arrayValue(): Int = {
    val r = next()
    if (isSpace(r)) { ignore(); return ArrayValue }
    r match {
      case '#' => push(ArrayValue); CommentStart
      case '/' => afterSlash(ArrayValue, error("Unexpected array value terminator ','."))
      case ',' => error("Unexpected array value terminator ','.")
      case ']' => ArrayEnd
      case _ => backup(); push(ArrayValueEnd); Value
    }
  }

  private def arrayValueEnd(): Int = {
    val r = next()
    r match {
      case ' ' | '\t' => ignore(); ArrayValueEnd
      case '#' => push(ArrayValueEnd); CommentStart
      case '/' => afterSlash(ArrayValueEnd, { ignore(); ArrayValue }) // a lone `/` separates items like `,`
      case ',' | '\n' | '\r' => ignore(); ArrayValue
      case ']' => ArrayEnd
      case _ =>
        errorAt("Expected an array value terminator \",\" or an array terminator \"]\", but got '%s' instead.", r)
    }
  }

  private def mapKeyStart(): Int = {
    val r = peek()
    if (r == '=' || r == ':') return errorAt("Unexpected key separator '%s'.", r)
    if (r == ']') return errorAt("Unexpected array end '%s' processing map.", r)
    if (isSpace(r)) { next(); ignore(); return MapKeyStart }
    r match {
      case '}' => next(); ignore(); MapEnd
      case '#' => next(); push(MapKeyStart); CommentStart
      case '/' =>
        next()
        if (next() == '/') { push(MapKeyStart); return CommentStart }
        backup()
        ignore(); next(); MapKey // the lone `/` is dropped: the key starts after it
      case '\'' => next(); ignore(); MapSqKey
      case '"' => next(); ignore(); MapDqKey
      case Eof => error("Unexpected EOF processing map.")
      case _ => ignore(); next(); MapKey
    }
  }

  private def mapQuotedKey(quote: Int, eofMessage: String): Int = {
    skipTo(if (quote == '"') DqKeyStops else SqStops)
    if (pos < input.length && input(pos) == quote) { emit(Item.Key); next(); ignore(); MapKeyEnd }
    else error(eofMessage)
  }

  private def mapKey(): Int = {
    while (true) {
      skipTo(KeyStops)
      val r = peek()
      if (r == Eof) return error("Unexpected EOF processing map key.")
      if (isSpace(r)) return keyOrInclude(MapKeyEnd, MapValueEnd)
      if (r == '=' || r == ':') { emit(Item.Key); return MapKeyEnd }
      next()
    }
    Stop
  }

  private def mapKeyEnd(): Int = {
    val r = next()
    if (isSpace(r)) { ignore(); MapKeyEnd }
    else if (r == '=' || r == ':') { ignore(); MapValue }
    else { backup(); MapValue }
  }

  private def mapValue(): Int = {
    val r = next()
    if (isSpace(r)) { ignore(); MapValue }
    else if (r == ',') error("Unexpected map value terminator \",\".")
    else if (r == '}') { ignore(); MapEnd } // a key with no value before the map's end: Go reads on
    else { backup(); push(MapValueEnd); Value }
  }

  private def mapValueEnd(): Int = {
    val r = next()
    r match {
      case ' ' | '\t' => ignore(); MapValueEnd
      case '#' => push(MapValueEnd); CommentStart
      case '/' => afterSlash(MapValueEnd, { ignore(); MapKeyStart })
      case ';' | ',' | '\n' | '\r' => ignore(); MapKeyStart
      case '}' => ignore(); MapEnd
      case _ => errorAt("Expected a map value terminator \",\" or a map terminator \"}\", but got '%s' instead.", r)
    }
  }

  private def singleQuoted(): Int = {
    skipTo(SqStops)
    if (pos < input.length && input(pos) == '\'') { emit(Item.Str); pending.quoted = true; next(); ignore(); pop() }
    else { next(); endOfText() }
  }

  private def doubleQuoted(): Int = {
    skipTo(DqStops)
    val r = next()
    if (r == '\\') { addCurrentStringPart(1); StringEscape }
    else if (r == '"') { backup(); emitString(quoted = true); next(); ignore(); pop() }
    else endOfText()
  }

  private def bareString(): Int = {
    while (true) {
      skipTo(BareStops)
      val r = next()
      r match {
        case '\\' => addCurrentStringPart(1); return StringEscape
        case '\n' | '\r' | Eof | ';' | ',' | ']' | '}' | ' ' | '\t' =>
          backup()
          if (stringParts != null) emitString(quoted = false)
          else if (isBool(input, start, pos)) emit(Item.Bool)
          else if (start < input.length && input(start) == '$') { start += 1; emit(Item.Variable) }
          else emitString(quoted = false)
          return pop()
        case '\'' => backup(); emitString(quoted = false); next(); ignore(); return pop()
        case _ =>
      }
    }
    Stop
  }

  /** `( ... )`: everything up to a `)` alone on its line. */
  private def block(): Int = {
    val r = next()
    if (r == Eof) return error("Unexpected EOF processing block.")
    if (r != ')') return Block
    backup()
    backup() // Go steps back over the `)` and one byte more, then reads forward again
    if (next() != '\n') { next(); return Block }
    next()
    next() match {
      case '\n' | Eof =>
        backup()
        backup()
        emit(Item.Str)
        pending.quoted = true
        next()
        ignore()
        pop()
      case _ => backup(); Block
    }
  }

  private def stringEscape(): Int = {
    val r = next()
    r match {
      case 'x' => StringBinary
      case 't' => addStringPart('\t')
      case 'n' => addStringPart('\n')
      case 'r' => addStringPart('\r')
      case '"' => addStringPart('"')
      case '\\' => addStringPart('\\')
      case _ => errorAt("Invalid escape character '%s'. Only the following escape characters are allowed: " +
            "\\xXX, \\t, \\n, \\r, \\\", \\\\.", r)
    }
  }

  private def stringBinary(): Int = {
    if (isNewLine(next()) || isNewLine(next()))
      return error("Expected two hexadecimal digits after '\\x', but hit end of line")
    // The two bytes before the cursor, whatever runes were read: Go decodes `input[pos-2:pos]`.
    val hi = hexValue(input(pos - 2))
    val lo = hexValue(input(pos - 1))
    if (hi < 0 || lo < 0)
      return errorBytes("Expected two hexadecimal digits after '\\x', but got '", input, pos - 2, pos, "'")
    addStringPart(hi * 16 + lo)
  }

  /** An error quoting raw bytes of the text (which Go writes as they are, valid UTF-8 or not). */
  private def errorBytes(before: String, bytes: Array[Byte], from: Int, until: Int, after: String): Int = {
    val out = new java.io.ByteArrayOutputStream
    out.write(utf8(before))
    out.write(bytes, from, until - from)
    out.write(utf8(after))
    pending = new Item(Item.Error, out.toByteArray, line, 0, pos, quoted = false)
    Stop
  }

  private def numberStart(digits: Int): Int = {
    val r = next()
    if (isDigit(r)) digits
    else if (r == '.') error("Floats must start with a digit, not '.'.")
    else errorAt("Expected a digit but got '%s'.", r)
  }

  private def number(): Int = {
    val r = next()
    if (r == '-') {
      if (pos - start != 5) error("All ISO8601 dates must be in full Zulu form.") else DateAfterYear
    } else if (isDigit(r)) Number
    else if (r == '.') FloatStart
    else if (isNumberSuffix(r)) SizedNumber
    else if (!(isNewLine(r) || r == Eof || r == '}' || r == ';' || r == ',' || r == ' ' || r == '\t')) {
      stringState = BareString // not a number after all: a bare string that starts with digits
      BareString
    } else { backup(); emit(Item.Integer); pop() }
  }

  private def sizedNumber(): Int = {
    val r = next()
    if (r == 'b' || r == 'B' || r == 'i' || r == 'I') return SizedNumber
    backup()
    if (isNewLine(r) || r == Eof || r == '}' || r == ';' || r == ',' || r == ' ' || r == '\t') {
      emit(Item.Integer)
      pop()
    } else { stringState = BareString; BareString }
  }

  private def dateAfterYear(): Int = {
    var i = 0
    while (i < DateForm.length) {
      val f = DateForm.charAt(i)
      val r = next()
      if (f == '0') {
        if (!isDigit(r)) return errorAt("Expected digit in ISO8601 datetime, but found '%s' instead.", r)
      } else if (f != r) return errorAt("Expected '%s' in ISO8601 datetime, but found '%s' instead.", f, r)
      i += 1
    }
    emit(Item.DateTime)
    pop()
  }

  private def negNumber(): Int = {
    val r = next()
    if (isDigit(r)) NegNumber
    else if (r == '.') FloatStart
    else if (isNumberSuffix(r)) SizedNumber
    else { backup(); emit(Item.Integer); pop() }
  }

  private def floatStart(): Int = {
    val r = next()
    if (isDigit(r)) Float else errorAt("Floats must have a digit after the '.', but got '%s' instead.", r)
  }

  private def float(): Int = {
    val r = next()
    if (isDigit(r)) Float
    else if (r == '.') IpAddr // a second `.`: an IP address, a string
    else { backup(); emit(Item.Float); pop() }
  }

  private def ipAddr(): Int = {
    val r = next()
    if (isDigit(r) || r == '.' || r == ':' || r == '-') IpAddr
    else { backup(); emit(Item.Str); pop() }
  }

  private def comment(): Int = {
    // Up to a new line or the end (a NUL ends it too), which the state on the stack reads.
    while (pos < input.length && input(pos) != '\n' && input(pos) != '\r' && input(pos) != 0) pos += 1
    emit(Item.Text)
    pop()
  }
}

/**
 * One item of the text: its kind, its bytes (a key, a string's value, a number's text), its line and Go's
 * position on it (`pos`), and where in the text it ends (`end`). `quoted`: a string written in quotes.
 */
private[config] final class Item(
    val kind: Int, val value: Array[Byte], val line: Int, val pos: Int, val end: Int, var quoted: Boolean)

private[config] object Item {
  final val Error = 0
  final val Eof = 2
  final val Key = 3
  final val Text = 4
  final val Str = 5
  final val Bool = 6
  final val Integer = 7
  final val Float = 8
  final val DateTime = 9
  final val ArrayStart = 10
  final val ArrayEnd = 11
  final val MapStart = 12
  final val MapEnd = 13
  final val Comment = 14
  final val Variable = 15
  final val Include = 16
}

/** The lexer's states, the character classes of Go's `unicode` package it uses, and UTF-8 as Go reads it. */
private[config] object ConfLexer {
  final val Eof = 0

  private final val Top = 0
  private final val TopValueEnd = 1
  private final val BlockStart = 2
  private final val BlockValueEnd = 3
  private final val BlockEnd = 4
  private final val KeyStart = 5
  private final val DqKey = 6
  private final val SqKey = 7
  private final val Key = 8
  private final val KeyEnd = 9
  private final val IncludeStart = 10
  private final val Include = 11
  private final val IncludeSq = 12
  private final val IncludeDq = 13
  private final val IncludeBare = 14
  private final val Value = 15
  private final val ArrayValue = 16
  private final val ArrayValueEnd = 17
  private final val ArrayEnd = 18
  private final val MapKeyStart = 19
  private final val MapSqKey = 20
  private final val MapDqKey = 21
  private final val MapKey = 22
  private final val MapKeyEnd = 23
  private final val MapValue = 24
  private final val MapValueEnd = 25
  private final val MapEnd = 26
  private final val SqString = 27
  private final val DqString = 28
  private final val BareString = 29
  private final val Block = 30
  private final val StringEscape = 31
  private final val StringBinary = 32
  private final val NumberStart = 33
  private final val Number = 34
  private final val SizedNumber = 35
  private final val DateAfterYear = 36
  private final val NegNumberStart = 37
  private final val NegNumber = 38
  private final val FloatStart = 39
  private final val Float = 40
  private final val IpAddr = 41
  private final val CommentStart = 42
  private final val Comment = 43
  private final val Stop = 44

  private final val DateForm = "00-00T00:00:00Z"

  /** The bytes that end a run (`skipTo`): its ASCII characters and a NUL, and other bytes where one may. */
  private def stops(ascii: String, bytes: Int*): Array[Boolean] = {
    val s = new Array[Boolean](256)
    s(0) = true
    ascii.foreach(c => s(c) = true)
    bytes.foreach(b => s(b) = true)
    s
  }
  private val DqStops = stops("\"\\")
  private val SqStops = stops("'")
  private val DqKeyStops = stops("\"")
  private val BareStops = stops("\\\n\r;,]} \t'")
  // a key ends at white space, `=` or `:`; the multi-byte spaces start with one of these four bytes
  private val KeyStops = stops("\t\n\r =:", 0x0b, 0x0c, 0xc2, 0xe1, 0xe2, 0xe3)

  /**
   * Go's `utf8.DecodeRune` at `i`: the rune in the low 24 bits, its width in bytes in the high 8. An
   * invalid or truncated sequence is U+FFFD, one byte wide.
   */
  def decodeRune(b: Array[Byte], i: Int, until: Int): Int = {
    val b0 = b(i) & 0xff
    if (b0 < 0x80) return b0 | (1 << 24)
    def cont(k: Int, lo: Int = 0x80, hi: Int = 0xbf): Int =
      if (i + k < until && (b(i + k) & 0xff) >= lo && (b(i + k) & 0xff) <= hi) b(i + k) & 0x3f else -1
    val bad = 0xfffd | (1 << 24)
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      val c1 = cont(1)
      if (c1 < 0) bad else ((b0 & 0x1f) << 6 | c1) | (2 << 24)
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      val c1 = if (b0 == 0xe0) cont(1, 0xa0) else if (b0 == 0xed) cont(1, 0x80, 0x9f) else cont(1)
      val c2 = if (c1 < 0) -1 else cont(2)
      if (c2 < 0) bad else ((b0 & 0x0f) << 12 | c1 << 6 | c2) | (3 << 24)
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      val c1 = if (b0 == 0xf0) cont(1, 0x90) else if (b0 == 0xf4) cont(1, 0x80, 0x8f) else cont(1)
      val c2 = if (c1 < 0) -1 else cont(2)
      val c3 = if (c2 < 0) -1 else cont(3)
      if (c3 < 0) bad else ((b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3) | (4 << 24)
    } else bad
  }

  def decodeRune(b: Array[Byte], i: Int): Int = decodeRune(b, i, b.length)

  /** Go's `unicode.IsSpace`. */
  def isSpace(r: Int): Boolean =
    if (r <= 0xff) r == ' ' || (r >= '\t' && r <= '\r') || r == 0x85 || r == 0xa0
    else r == 0x1680 || (r >= 0x2000 && r <= 0x200a) || r == 0x2028 || r == 0x2029 || r == 0x202f ||
    r == 0x205f || r == 0x3000

  /**
   * Go's `unicode.IsDigit` (Unicode 15.0, the tables of the Go that builds nats-server 2.15): the
   * decimal digits of every script, each block ten (or fifty) in a row.
   */
  def isDigit(r: Int): Boolean =
    if (r <= 0xff) r >= '0' && r <= '9'
    else {
      var i = 0
      while (i < DigitRanges.length) {
        if (r < DigitRanges(i)) return false
        if (r <= DigitRanges(i + 1)) return true
        i += 2
      }
      false
    }

  private val DigitRanges = Array(0x0660, 0x0669, 0x06f0, 0x06f9, 0x07c0, 0x07c9, 0x0966, 0x096f, 0x09e6, 0x09ef,
    0x0a66, 0x0a6f, 0x0ae6, 0x0aef, 0x0b66, 0x0b6f, 0x0be6, 0x0bef, 0x0c66, 0x0c6f, 0x0ce6, 0x0cef, 0x0d66, 0x0d6f,
    0x0de6, 0x0def, 0x0e50, 0x0e59, 0x0ed0, 0x0ed9, 0x0f20, 0x0f29, 0x1040, 0x1049, 0x1090, 0x1099, 0x17e0, 0x17e9,
    0x1810, 0x1819, 0x1946, 0x194f, 0x19d0, 0x19d9, 0x1a80, 0x1a89, 0x1a90, 0x1a99, 0x1b50, 0x1b59, 0x1bb0, 0x1bb9,
    0x1c40, 0x1c49, 0x1c50, 0x1c59, 0xa620, 0xa629, 0xa8d0, 0xa8d9, 0xa900, 0xa909, 0xa9d0, 0xa9d9, 0xa9f0, 0xa9f9,
    0xaa50, 0xaa59, 0xabf0, 0xabf9, 0xff10, 0xff19, 0x104a0, 0x104a9, 0x10d30, 0x10d39, 0x11066, 0x1106f, 0x110f0,
    0x110f9, 0x11136, 0x1113f, 0x111d0, 0x111d9, 0x112f0, 0x112f9, 0x11450, 0x11459, 0x114d0, 0x114d9, 0x11650,
    0x11659, 0x116c0, 0x116c9, 0x11730, 0x11739, 0x118e0, 0x118e9, 0x11950, 0x11959, 0x11c50, 0x11c59, 0x11d50,
    0x11d59, 0x11da0, 0x11da9, 0x11f50, 0x11f59, 0x16a60, 0x16a69, 0x16ac0, 0x16ac9, 0x16b50, 0x16b59, 0x1d7ce,
    0x1d7ff, 0x1e140, 0x1e149, 0x1e2f0, 0x1e2f9, 0x1e4f0, 0x1e4f9, 0x1e950, 0x1e959, 0x1fbf0, 0x1fbf9)

  /** The Unicode digits Go's `unicode.IsDigit` knows, as ranges (the differential test compares them with Go's). */
  def digitRanges: Seq[(Int, Int)] = ('0'.toInt, '9'.toInt) +: DigitRanges.grouped(2).map(a => (a(0), a(1))).toSeq

  def isNewLine(r: Int): Boolean = r == '\n' || r == '\r'

  private def isNumberSuffix(r: Int): Boolean = r < 0x80 && "kKmMgGtTpPeE".indexOf(r) >= 0

  private def hexValue(b: Byte): Int = if (b < 0) -1 else Character.digit(b.toInt, 16)

  /** Whether `b[from, until)`, lower-cased as Go's `strings.ToLower` does, is `include`. */
  private def isInclude(b: Array[Byte], from: Int, until: Int): Boolean = lowerEquals(b, from, until, "include")

  /** Whether `b[from, until)` is `true`, `false`, `on`, `off`, `yes` or `no` in any case. */
  private def isBool(b: Array[Byte], from: Int, until: Int): Boolean =
    BoolWords.exists(w => lowerEquals(b, from, until, w))

  private val BoolWords = Seq("true", "false", "on", "off", "yes", "no")

  /**
   * Go's `strings.ToLower(text) == word` for an ASCII `word`: besides ASCII letters only U+0130 (İ, which
   * Go lowers to `i`) and U+212A (the Kelvin sign, to `k`) lower to ASCII.
   */
  def lowerEquals(b: Array[Byte], from: Int, until: Int, word: String): Boolean = {
    var i = from
    var j = 0
    while (i < until) {
      if (j >= word.length) return false
      val r = decodeRune(b, i, until)
      val c = r & 0xffffff
      val lower = if (c >= 'A' && c <= 'Z') c + 32 else if (c == 0x130) 'i'.toInt else if (c == 0x212a) 'k'.toInt else c
      if (lower != word.charAt(j)) return false
      i += r >>> 24
      j += 1
    }
    j == word.length
  }

  /** Go's `%v` of a rune: its UTF-8 (U+FFFD for an invalid byte, a NUL for the end). */
  private def runeText(r: Int): String = new String(Character.toChars(r))

  def utf8(s: String): Array[Byte] = GoBytes.encode(s)
}
