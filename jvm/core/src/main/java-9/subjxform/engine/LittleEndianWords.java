package subjxform.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Reads 8 bytes of an array as one little-endian long: the Java 9+ variant (META-INF/versions/9 of the
 * multi-release jar; src/main/java has the Java 8 one). Java, because a VarHandle's
 * signature-polymorphic `get` is compiled to a plain 8-byte load only from Java.
 */
final class LittleEndianWords {
  private LittleEndianWords() {}

  /** Which variant this is, for tests that check the jar gives each Java the right one. */
  static final String VARIANT = "varhandle";

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  static long get(byte[] in, int i) {
    return (long) LONG_LE.get(in, i);
  }
}
