package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8

/**
 * Draws that are a pure function of (seed, key, what is drawn), for reproducible weighted choices and
 * `{{random(n)}}` tokens: the same message (the same 64-bit key, which the caller derives from the
 * message, e.g. a hash of its id) gets the same result whatever the partitioning, the micro-batch, the
 * order of rows, a task retry or which other rows were filtered out upstream.
 *
 * What is drawn is named by a salt: a mapping rule's weighted choice by its source subject, the n-th
 * token of a destination by (source, destination, n). So a rule's draws do not change when other rules
 * are added, removed or reordered, and two rules (or two `{{random(n)}}` tokens, or two seeds) draw
 * independently of each other.
 *
 * Each value is three rounds of SplitMix64's finalizer (Stafford's variant 13, full avalanche), over the
 * seed, then the key, then the salt, reduced to [0, bound) by a remainder of its top 63 bits: the bias
 * is below bound / 2^63, nothing at the bounds used here (100 for weights, at most 2^31 for random(n)).
 */
object KeyedDraw {

  /** An integer in [0, bound) (bound > 0) for this seed, key and salt. */
  def below(bound: Long, seed: Long, key: Long, salt: Long): Long =
    (mix(mix(mix(seed ^ 0x9e3779b97f4a7c15L) ^ key) ^ salt) >>> 1) % bound

  /** SplitMix64's finalizer. */
  def mix(z0: Long): Long = {
    var z = z0
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL
    z ^ (z >>> 31)
  }

  /** The salt of what a text names (a rule's source subject). */
  def salt(text: String): Long = {
    // FNV-1a 64 over the UTF-8 bytes, then mixed: only the identity of the text matters.
    var h = 0xcbf29ce484222325L
    val b = text.getBytes(UTF_8)
    var i = 0
    while (i < b.length) { h = (h ^ (b(i) & 0xff)) * 0x100000001b3L; i += 1 }
    mix(h ^ b.length)
  }

  /** The salt of the `index`-th draw of a transform from `source` to `destination`. */
  def salt(source: String, destination: String, index: Int): Long =
    mix(salt(source) * 31 + salt(destination) + index)
}
