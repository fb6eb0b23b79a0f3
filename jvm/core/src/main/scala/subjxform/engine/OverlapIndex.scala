package subjxform.engine

/**
 * Which filters might overlap a given one, without comparing it with each: a token trie (compile time
 * only) whose [[candidates]] are every indexed filter for which some subject could match both. It
 * over-approximates, never misses: the caller decides with its exact rule (nats-server's
 * `subjectIsSubsetMatch`, `SubjectsCollide`, or a common subject of two mapping rules), so a check over
 * n filters costs about n walks of a few nodes instead of n² comparisons.
 *
 * Tokens are compared as strings, as those rules compare them, on any text (empty and misplaced tokens
 * included, since a mirror's filters are compared before all of them are validated). Two filters are
 * candidates when, position by position up to the first `>` token of either, their tokens are equal or
 * one of them starts with `*` or `>` (a wildcard, or a token nats-server's matching treats as one), and
 * they have the same number of tokens unless one has a `>` token. The walks keep their own stacks, so a
 * filter of many tokens cannot exhaust the thread's.
 */
private[subjxform] final class OverlapIndex {
  // Lean nodes (a table of 100,000 rules makes a few hundred thousand): collections only where needed.
  private final class Node {
    var literal: java.util.HashMap[String, Node] = _
    var wildKeys: Array[String] = OverlapIndex.NoKeys // keys starting with `*` or `>`, few per node
    var wildNodes: Array[Node] = _
    var ending: Array[Int] = OverlapIndex.NoIds // filters whose last token leads here
    var endingCount = 0

    def child(t: String): Node =
      if (OverlapIndex.isWild(t)) {
        val i = wildKeys.indexOf(t)
        if (i >= 0) wildNodes(i)
        else {
          val n = new Node
          wildKeys = wildKeys :+ t
          wildNodes = if (wildNodes == null) Array(n) else wildNodes :+ n
          n
        }
      } else {
        if (literal == null) literal = new java.util.HashMap[String, Node]()
        var n = literal.get(t)
        if (n == null) { n = new Node; literal.put(t, n) }
        n
      }

    def end(id: Int): Unit = {
      if (endingCount == ending.length) ending = java.util.Arrays.copyOf(ending, math.max(2, endingCount * 2))
      ending(endingCount) = id
      endingCount += 1
    }
  }

  private val root = new Node
  // The walk's pending (node, tokens consumed) pairs, reused.
  private var nodes = new Array[Node](64)
  private var depths = new Array[Int](64)

  def add(tokens: Array[String], id: Int): Unit = {
    var node = root
    var d = 0
    while (d < tokens.length) { node = node.child(tokens(d)); d += 1 }
    node.end(id)
  }

  /** Calls `visit` with every indexed filter that may overlap `tokens` (some more than once). */
  def candidates(tokens: Array[String])(visit: Int => Unit): Unit = {
    var sp = 0
    def push(n: Node, d: Int): Unit = {
      if (sp == nodes.length) {
        nodes = java.util.Arrays.copyOf(nodes, sp * 2)
        depths = java.util.Arrays.copyOf(depths, sp * 2)
      }
      nodes(sp) = n
      depths(sp) = d
      sp += 1
    }
    push(root, 0)
    while (sp > 0) {
      sp -= 1
      val node = nodes(sp)
      val d = depths(sp)
      nodes(sp) = null
      if (d == tokens.length) {
        var i = 0
        while (i < node.endingCount) { visit(node.ending(i)); i += 1 }
      } else {
        val t = tokens(d)
        if (t == ">") {
          // Everything longer than the tokens before it.
          if (node.literal != null) node.literal.values.forEach(everything(_, visit))
          node.wildKeys.indices.foreach(i => everything(node.wildNodes(i), visit))
        } else {
          var i = 0
          while (i < node.wildKeys.length) {
            if (node.wildKeys(i) == ">") everything(node.wildNodes(i), visit) else push(node.wildNodes(i), d + 1)
            i += 1
          }
          if (node.literal != null) {
            if (OverlapIndex.isWild(t)) node.literal.values.forEach(push(_, d + 1))
            else {
              val c = node.literal.get(t)
              if (c != null) push(c, d + 1)
            }
          }
        }
      }
    }
  }

  /** Every filter at or below `from`. */
  private def everything(from: Node, visit: Int => Unit): Unit = {
    val stack = new java.util.ArrayDeque[Node]()
    stack.push(from)
    while (!stack.isEmpty) {
      val n = stack.pop()
      var i = 0
      while (i < n.endingCount) { visit(n.ending(i)); i += 1 }
      if (n.literal != null) n.literal.values.forEach(stack.push(_))
      if (n.wildNodes != null) n.wildNodes.foreach(stack.push)
    }
  }
}

private object OverlapIndex {
  private val NoKeys = new Array[String](0)
  private val NoIds = new Array[Int](0)

  def isWild(t: String): Boolean = t.nonEmpty && (t.charAt(0) == '*' || t.charAt(0) == '>')
}
