package subjxform.engine

import java.nio.{ByteBuffer, ByteOrder}

import org.scalatest.funsuite.AnyFunSuite

/**
 * The word reads under the engine's scans. These tests see the class the classpath gives them: here
 * (core's class folder) the Java 8 variant; the Spark tests see core's multi-release jar, so on Java 9+
 * the VarHandle one (MultiReleaseJarSuite checks which).
 */
class LittleEndianWordsSuite extends AnyFunSuite {

  test("a word is the 8 bytes at the offset, the first one lowest, at every offset of random arrays") {
    val random = new java.util.Random(7)
    for (length <- Seq(8, 9, 15, 64, 257)) {
      val bytes = new Array[Byte](length)
      random.nextBytes(bytes)
      val buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
      for (i <- 0 to length - 8) assert(LittleEndianWords.get(bytes, i) == buffer.getLong(i), s"offset $i of $length")
    }
  }

  test("the dots of a word are exactly its '.' bytes, whatever the other bytes") {
    val random = new java.util.Random(11)
    for (_ <- 0 until 10000) {
      val bytes = Array.fill[Byte](8)(if (random.nextInt(3) == 0) '.' else random.nextInt(256).toByte)
      val dots = Swar.dots(Swar.word(bytes, 0))
      val expected = bytes.indices.filter(bytes(_) == '.').map(i => 0x80L << (8 * i)).foldLeft(0L)(_ | _)
      assert(dots == expected, bytes.mkString(","))
    }
  }
}
