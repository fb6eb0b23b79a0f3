package subjxform.engine;

/**
 * Reads 8 bytes of an array as one little-endian long. The Java 8 variant: Java 8 has no VarHandle,
 * so the word is put together from its bytes. Java 9 and later load the variant in src/main/java-9
 * instead (META-INF/versions/9 of the multi-release jar), a single 8-byte load.
 */
final class LittleEndianWords {
  private LittleEndianWords() {}

  /** Which variant this is, for tests that check the jar gives each Java the right one. */
  static final String VARIANT = "java8";

  static long get(byte[] in, int i) {
    return (in[i] & 0xffL)
        | (in[i + 1] & 0xffL) << 8
        | (in[i + 2] & 0xffL) << 16
        | (in[i + 3] & 0xffL) << 24
        | (in[i + 4] & 0xffL) << 32
        | (in[i + 5] & 0xffL) << 40
        | (in[i + 6] & 0xffL) << 48
        | (in[i + 7] & 0xffL) << 56;
  }
}
