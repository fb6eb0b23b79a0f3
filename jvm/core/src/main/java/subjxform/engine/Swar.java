package subjxform.engine;

/**
 * Eight bytes at a time ("SIMD within a register") for the engine's scan of a subject: finding the
 * `.` separators. Branch-free per word and exact (no false hits). How a word
 * is read depends on the Java version: see [[LittleEndianWords]].
 */
final class Swar {
  private Swar() {}

  private static final long LOW7 = 0x7f7f7f7f7f7f7f7fL;
  private static final long DOTS = 0x2e2e2e2e2e2e2e2eL; // '.' in every byte

  /** The 8 bytes at `in[i, i+8)`, the first one lowest. */
  static long word(byte[] in, int i) {
    return LittleEndianWords.get(in, i);
  }

  /** The high bit of each byte of `w` that is a `.`; the lowest set bit is the first `.`. */
  static long dots(long w) {
    long x = w ^ DOTS; // a '.' byte becomes zero
    // A byte of x is zero exactly when adding 0x7f to its low 7 bits does not reach the high bit
    // and its own high bit is clear; no carry crosses bytes, so there are no false hits.
    return ~(((x & LOW7) + LOW7) | x | LOW7);
  }
}
