package subjxform.engine;

/**
 * Eight bytes at a time ("SIMD within a register") for the engine's scans of a subject: finding the
 * `.` separators and checking for ASCII. Branch-free per word and exact (no false hits). How a word
 * is read depends on the Java version: see [[LittleEndianWords]].
 */
final class Swar {
  private Swar() {}

  private static final long LOW7 = 0x7f7f7f7f7f7f7f7fL;
  private static final long HIGH = 0x8080808080808080L;
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

  /** Whether `in[s, e)` is all ASCII (so a character is a byte). */
  static boolean isAscii(byte[] in, int s, int e) {
    int i = s;
    long any = 0;
    for (; i + 8 <= e; i += 8) any |= word(in, i);
    if ((any & HIGH) != 0) return false;
    for (; i < e; i++) if (in[i] < 0) return false;
    return true;
  }
}
