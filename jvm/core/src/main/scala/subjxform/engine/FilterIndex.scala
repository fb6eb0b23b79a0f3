package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8

/**
 * Many subject filters, indexed to answer "which is the first one, in written order, that this literal
 * subject matches?" without looking at each: a token trie like nats-server's sublist (`sublist.go`),
 * where a subject walks down the child for its token and the child for "any one token" at each level.
 * Each filter ends at one node, as "ends here" (no `>`) or "the rest" (a trailing `>`: one token or
 * more after the node's); a node also knows the first filter anywhere below it, so the walk skips a
 * branch that cannot hold an earlier match than one already found. The result is exactly that of
 * trying the filters one by one in written order.
 *
 * `sourceQuirk`: as [[SubjectFilter]]'s, a token that starts with `*` matches any one token (how
 * nats-server matches a transform's source); without it only a lone `*` does.
 *
 * Flat arrays indexed by node number (root 0), no object per node, so the footprint is a few ints per
 * distinct filter prefix plus the bytes of the literal tokens. The walk allocates nothing: its pending
 * branches live in the caller's [[Workspace]]. Immutable and thread-safe.
 */
final class FilterIndex private (
    val size: Int, // number of filters
    tokenPool: Array[Byte], // the literal edge tokens, each once
    node: Array[Int], // Stride ints per node, so that a node's fields share a cache line (see FilterIndex)
    childSlots: Array[Long]) // open addressing on (parent, token): a literal child's hash << 32 | its node; 0 = empty
  extends Serializable {

  import FilterIndex._

  /** Number of trie nodes (the root included). */
  def nodes: Int = node.length / Stride

  /**
   * The number (position in written order) of the first filter that the subject tokenized in `ws`
   * (`ntok` tokens, boundaries in `ws.tokStart`/`ws.tokEnd`) matches, or -1 when none does.
   */
  def firstMatch(in: Array[Byte], ws: Workspace, ntok: Int): Int = {
    var best = Int.MaxValue
    ws.searchNode(0) = 0
    ws.searchDepth(0) = 0
    var sp = 1
    while (sp > 0) {
      sp -= 1
      val at = ws.searchNode(sp) * Stride
      val d = ws.searchDepth(sp)
      if (node(at + FirstBelow) < best) {
        if (d == ntok) {
          val e = node(at + EndsHere)
          if (e >= 0 && e < best) best = e
        } else {
          val r = node(at + RestHere)
          if (r >= 0 && r < best) best = r
          val lit = literalChild(at / Stride, in, ws.tokStart(d), ws.tokEnd(d))
          val any = node(at + AnyChild)
          if (sp + 2 > ws.searchNode.length) ws.growSearch()
          // The branch that may hold the earlier filter is pushed last, so it is walked first.
          if (lit >= 0 && any >= 0) {
            val litFirst = node(lit * Stride + FirstBelow) <= node(any * Stride + FirstBelow)
            ws.searchNode(sp) = if (litFirst) any else lit; ws.searchDepth(sp) = d + 1; sp += 1
            ws.searchNode(sp) = if (litFirst) lit else any; ws.searchDepth(sp) = d + 1; sp += 1
          } else if (lit >= 0 || any >= 0) {
            ws.searchNode(sp) = if (lit >= 0) lit else any; ws.searchDepth(sp) = d + 1; sp += 1
          }
        }
      }
    }
    if (best == Int.MaxValue) -1 else best
  }

  /** The literal child of node `parent` for the token `in[s, e)`, or -1. */
  private def literalChild(parent: Int, in: Array[Byte], s: Int, e: Int): Int = {
    if (childSlots.length == 0) return -1
    val h = hash(parent, in, s, e)
    val mask = childSlots.length - 1
    var slot = h & mask
    val len = e - s
    while (true) {
      val entry = childSlots(slot)
      if (entry == 0L) return -1
      // The stored hash rules out almost every other child without reading its node.
      if ((entry >>> 32).toInt == h) {
        val c = entry.toInt
        val at = c * Stride
        if (node(at + Parent) == parent && node(at + TokenLength) == len && sameBytes(node(at + TokenOffset), in, s, len))
          return c
      }
      slot = (slot + 1) & mask
    }
    -1
  }

  private def sameBytes(at: Int, in: Array[Byte], s: Int, len: Int): Boolean = {
    var i = 0
    while (i < len) { if (tokenPool(at + i) != in(s + i)) return false; i += 1 }
    true
  }
}

object FilterIndex {
  // A node's fields, in one int array. A big table's index does not fit the CPU caches: one line per
  // node visited, not one per field.
  private final val TokenOffset = 0 // where its edge token starts in tokenPool (a literal child)
  private final val TokenLength = 1 // its edge token's length; -1 for an "any one token" child
  private final val Parent = 2
  private final val AnyChild = 3 // the child for "any one token", or -1
  private final val EndsHere = 4 // the first filter ending exactly here, or -1
  private final val RestHere = 5 // the first filter ending with `>` right after this node, or -1
  private final val FirstBelow = 6 // the first filter ending here or anywhere below (Int.MaxValue: none)
  private final val Stride = 8

  /** FNV-1a of the token, then the parent mixed in (murmur3's finalizer, so that every bit counts). */
  private def hash(parent: Int, in: Array[Byte], s: Int, e: Int): Int = {
    var h = 0x811c9dc5
    var i = s
    while (i < e) { h = (h ^ (in(i) & 0xff)) * 0x01000193; i += 1 }
    h ^= parent * 0x9e3779b9
    h ^= h >>> 16
    h *= 0x85ebca6b
    h ^= h >>> 13
    h *= 0xc2b2ae35
    h ^ (h >>> 16)
  }

  /** An index of `filters` (valid subjects); a filter's number is its position in the sequence. */
  def apply(filters: Seq[String], sourceQuirk: Boolean): FilterIndex = {
    val b = new Builder(sourceQuirk)
    var i = 0
    filters.foreach { f => b.add(f, i); i += 1 }
    b.result(i)
  }

  private final class Builder(sourceQuirk: Boolean) {
    private var n = 1 // the root
    private var tokenOffset = new Array[Int](64)
    private var tokenLength = new Array[Int](64)
    private var parent = new Array[Int](64)
    private var anyChild = new Array[Int](64)
    private var endsHere = new Array[Int](64)
    private var restHere = new Array[Int](64)
    private val pool = new java.io.ByteArrayOutputStream()
    // (parent, token) -> child while building; the final lookup table is built from the nodes.
    private val children = new java.util.HashMap[(Int, String), Integer]()

    init(0, -1)

    private def init(node: Int, par: Int): Unit = {
      if (node == parent.length) grow()
      parent(node) = par
      anyChild(node) = -1
      endsHere(node) = -1
      restHere(node) = -1
      tokenLength(node) = -1
    }

    private def grow(): Unit = {
      val m = parent.length * 2
      tokenOffset = java.util.Arrays.copyOf(tokenOffset, m)
      tokenLength = java.util.Arrays.copyOf(tokenLength, m)
      parent = java.util.Arrays.copyOf(parent, m)
      anyChild = java.util.Arrays.copyOf(anyChild, m)
      endsHere = java.util.Arrays.copyOf(endsHere, m)
      restHere = java.util.Arrays.copyOf(restHere, m)
    }

    private def isAny(t: String): Boolean = t == "*" || (sourceQuirk && t.startsWith("*"))

    def add(filter: String, id: Int): Unit = {
      val toks = Subjects.tokens(filter)
      val fwc = toks.last == ">"
      val fixed = if (fwc) toks.length - 1 else toks.length
      var node = 0
      var d = 0
      while (d < fixed) {
        val t = toks(d)
        node =
          if (isAny(t)) {
            if (anyChild(node) < 0) { init(n, node); anyChild(node) = n; n += 1 }
            anyChild(node)
          } else {
            val key = (node, t)
            val known = children.get(key)
            if (known != null) known.intValue
            else {
              val c = n
              init(c, node)
              val bytes = t.getBytes(UTF_8)
              tokenOffset(c) = pool.size
              tokenLength(c) = bytes.length
              pool.write(bytes, 0, bytes.length)
              children.put(key, c)
              n += 1
              c
            }
          }
        d += 1
      }
      // A filter written twice keeps its first number: the first in written order is the one that matches.
      if (fwc) { if (restHere(node) < 0) restHere(node) = id }
      else if (endsHere(node) < 0) endsHere(node) = id
    }

    def result(count: Int): FilterIndex = {
      val poolBytes = pool.toByteArray
      // Children are numbered after their parents, so one backward pass gives each node its subtree's first.
      val firstBelow = Array.fill(n)(Int.MaxValue)
      var c = n - 1
      while (c >= 0) {
        if (endsHere(c) >= 0) firstBelow(c) = math.min(firstBelow(c), endsHere(c))
        if (restHere(c) >= 0) firstBelow(c) = math.min(firstBelow(c), restHere(c))
        if (c > 0) firstBelow(parent(c)) = math.min(firstBelow(parent(c)), firstBelow(c))
        c -= 1
      }
      val nodeData = new Array[Int](n * Stride)
      for (i <- 0 until n) {
        val at = i * Stride
        nodeData(at + TokenOffset) = tokenOffset(i)
        nodeData(at + TokenLength) = tokenLength(i)
        nodeData(at + Parent) = parent(i)
        nodeData(at + AnyChild) = anyChild(i)
        nodeData(at + EndsHere) = endsHere(i)
        nodeData(at + RestHere) = restHere(i)
        nodeData(at + FirstBelow) = firstBelow(i)
      }
      val literals = (1 until n).count(tokenLength(_) >= 0)
      val slots =
        if (literals == 0) Array.emptyLongArray
        else {
          val size = Integer.highestOneBit(literals * 2 + 1) << 1 // at most half full
          val s = new Array[Long](size)
          for (i <- 1 until n if tokenLength(i) >= 0) {
            val h = hash(parent(i), poolBytes, tokenOffset(i), tokenOffset(i) + tokenLength(i))
            var slot = h & (size - 1)
            while (s(slot) != 0L) slot = (slot + 1) & (size - 1)
            s(slot) = (h.toLong << 32) | i // i > 0: never the empty 0
          }
          s
        }
      new FilterIndex(count, poolBytes, nodeData, slots)
    }
  }
}
