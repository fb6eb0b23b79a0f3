package subjxform.core

import scala.collection.mutable

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
 * they have the same number of tokens unless one has a `>` token. The walk keeps its own stack, so a
 * filter of many tokens cannot exhaust the thread's.
 */
private[core] final class OverlapIndex {
  private final class Node {
    val literal = mutable.HashMap.empty[String, Node]
    val wild = mutable.LinkedHashMap.empty[String, Node] // keys starting with `*` or `>`
    val ending = mutable.ArrayBuffer.empty[Int] // filters whose last token leads here
  }

  private val root = new Node

  private def isWild(t: String): Boolean = t.nonEmpty && (t.charAt(0) == '*' || t.charAt(0) == '>')

  def add(tokens: Array[String], id: Int): Unit = {
    var node = root
    for (t <- tokens) {
      val children = if (isWild(t)) node.wild else node.literal
      node = children.getOrElseUpdate(t, new Node)
    }
    node.ending += id
  }

  /** Calls `visit` with every indexed filter that may overlap `tokens` (some more than once). */
  def candidates(tokens: Array[String])(visit: Int => Unit): Unit = {
    // Pending (node, tokens consumed) pairs: a stack of our own (ArrayStack/Stack differ between Scala 2.12 and 2.13).
    val nodes = mutable.ArrayBuffer[Node](root)
    val depths = mutable.ArrayBuffer[Int](0)
    def push(n: Node, d: Int): Unit = { nodes += n; depths += d }
    while (nodes.nonEmpty) {
      val node = nodes.remove(nodes.length - 1)
      val d = depths.remove(depths.length - 1)
      if (d == tokens.length) node.ending.foreach(visit)
      else {
        val t = tokens(d)
        if (t == ">") {
          // Everything longer than the tokens before it.
          node.literal.valuesIterator.foreach(everything(_, visit))
          node.wild.valuesIterator.foreach(everything(_, visit))
        } else {
          for ((k, child) <- node.wild) {
            if (k == ">") everything(child, visit)
            else push(child, d + 1)
          }
          if (isWild(t)) node.literal.valuesIterator.foreach(push(_, d + 1))
          else node.literal.get(t).foreach(push(_, d + 1))
        }
      }
    }
  }

  /** Every filter at or below `from`. */
  private def everything(from: Node, visit: Int => Unit): Unit = {
    val stack = mutable.ArrayBuffer(from)
    while (stack.nonEmpty) {
      val n = stack.remove(stack.length - 1)
      n.ending.foreach(visit)
      stack ++= n.literal.valuesIterator
      stack ++= n.wild.valuesIterator
    }
  }
}
