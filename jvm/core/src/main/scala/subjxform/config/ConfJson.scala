package subjxform.config

import scala.collection.mutable

import ConfValue._

/** Strict JSON (RFC 8259) into the same values; None when the text is not JSON. */
private[config] object ConfJson {
  def parse(text: String): Option[ConfValue] =
    try {
      val p = new JsonReader(text)
      val v = p.value()
      p.skipWs()
      if (p.atEnd) Some(v) else None
    } catch { case _: JsonError => None }

  private final class JsonError extends Exception(null, null, false, false)

  private final class JsonReader(s: String) {
    private var i = 0
    private var line = 1
    def atEnd: Boolean = i >= s.length
    private def err(): Nothing = throw new JsonError
    def skipWs(): Unit =
      while (i < s.length && " \t\r\n".indexOf(s.charAt(i)) >= 0) { if (s.charAt(i) == '\n') line += 1; i += 1 }
    private def expect(c: Char): Unit = { if (i >= s.length || s.charAt(i) != c) err(); i += 1 }

    // Objects and arrays being read, innermost last (no recursion: see MaxDepth).
    private sealed abstract class Frame
    private final class ObjFrame(val at: Int) extends Frame {
      val entries = mutable.LinkedHashMap.empty[String, ConfValue]
      val repeated = mutable.ArrayBuffer.empty[String]
      var key: String = _
    }
    private final class ArrFrame(val at: Int) extends Frame { val items = Vector.newBuilder[ConfValue] }
    private val frames = mutable.ArrayBuffer.empty[Frame]

    private def close(): ConfValue = frames.remove(frames.length - 1) match {
      case o: ObjFrame => Obj(o.entries.toVector, o.repeated.toVector, o.at)
      case a: ArrFrame => Arr(a.items.result(), a.at)
    }

    private def key(o: ObjFrame): Unit = { skipWs(); o.key = string(); skipWs(); expect(':') }

    def value(): ConfValue = {
      var v = start()
      while (true) {
        if (v != null && frames.isEmpty) return v
        frames.last match {
          case o: ObjFrame =>
            if (v == null) { // just opened
              skipWs()
              if (!atEnd && s.charAt(i) == '}') { i += 1; v = close() }
              else { key(o); v = start() }
            } else {
              if (o.entries.contains(o.key)) o.repeated += o.key
              o.entries(o.key) = v
              skipWs()
              if (!atEnd && s.charAt(i) == ',') { i += 1; key(o); v = start() }
              else { expect('}'); v = close() }
            }
          case a: ArrFrame =>
            if (v == null) {
              skipWs()
              if (!atEnd && s.charAt(i) == ']') { i += 1; v = close() }
              else v = start()
            } else {
              a.items += v
              skipWs()
              if (!atEnd && s.charAt(i) == ',') { i += 1; v = start() }
              else { expect(']'); v = close() }
            }
        }
      }
      throw new IllegalStateException
    }

    /** A value, or null when it opens an object or array (pushed as the innermost frame). */
    private def start(): ConfValue = {
      skipWs()
      if (atEnd) err()
      val at = line
      s.charAt(i) match {
        case '{' | '[' =>
          if (frames.length >= ConfSyntax.MaxDepth) throw ConfSyntax.tooDeep(line)
          frames += (if (s.charAt(i) == '{') new ObjFrame(at) else new ArrFrame(at))
          i += 1
          null
        case '"' => Str(string(), quoted = true, at)
        case 't' => literal("true"); Bool(true, at)
        case 'f' => literal("false"); Bool(false, at)
        case 'n' => literal("null"); Null(at)
        case _ => number(at)
      }
    }

    private def literal(w: String): Unit = { if (!s.startsWith(w, i)) err(); i += w.length }

    private def number(at: Int): ConfValue = {
      val start = i
      if (i < s.length && s.charAt(i) == '-') i += 1
      def digits(): Int = { val b = i; while (i < s.length && s.charAt(i) >= '0' && s.charAt(i) <= '9') i += 1; i - b }
      if (i < s.length && s.charAt(i) == '0') i += 1 else if (digits() == 0) err()
      var integral = true
      if (i < s.length && s.charAt(i) == '.') { i += 1; if (digits() == 0) err(); integral = false }
      if (i < s.length && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
        i += 1
        if (i < s.length && (s.charAt(i) == '+' || s.charAt(i) == '-')) i += 1
        if (digits() == 0) err()
        integral = false
      }
      val t = s.substring(start, i)
      if (!integral) Decimal(t.toDouble, at)
      else
        try Integer(t.toLong, at)
        catch { case _: NumberFormatException => Decimal(t.toDouble, at) }
    }

    private def string(): String = {
      expect('"')
      val sb = new java.lang.StringBuilder
      while (true) {
        if (atEnd) err()
        val c = s.charAt(i)
        i += 1
        c match {
          case '"' => return sb.toString
          case '\\' =>
            if (atEnd) err()
            val e = s.charAt(i)
            i += 1
            e match {
              case '"' => sb.append('"')
              case '\\' => sb.append('\\')
              case '/' => sb.append('/')
              case 'b' => sb.append('\b')
              case 'f' => sb.append('\f')
              case 'n' => sb.append('\n')
              case 'r' => sb.append('\r')
              case 't' => sb.append('\t')
              case 'u' =>
                if (i + 4 > s.length) err()
                val h = s.substring(i, i + 4)
                if (!h.forall(ch => Character.digit(ch, 16) >= 0)) err()
                sb.append(java.lang.Integer.parseInt(h, 16).toChar)
                i += 4
              case _ => err()
            }
          case ch if ch < 0x20 => err()
          case ch => sb.append(ch)
        }
      }
      throw new IllegalStateException
    }
  }
}
