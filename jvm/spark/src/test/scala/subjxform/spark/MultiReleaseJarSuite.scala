package subjxform.spark

import org.scalatest.funsuite.AnyFunSuite

/**
 * The engine ships as a multi-release jar: Java 8 (Spark 3.5 on Databricks 14.3/15.4, Cloudera) gets
 * the word reads Java 8 can do, Java 9 and later the VarHandle ones. The Spark tests load core from its
 * jar (exportJars), as a Spark job loads it from --jars.
 */
class MultiReleaseJarSuite extends AnyFunSuite {

  private def loadedVariant: String = {
    val words = Class.forName("subjxform.engine.LittleEndianWords")
    val field = words.getDeclaredField("VARIANT")
    field.setAccessible(true)
    field.get(null).asInstanceOf[String]
  }

  test("on Java 9 and later the engine reads words with a VarHandle, from the jar's META-INF/versions/9") {
    assert(System.getProperty("java.specification.version") != "1.8")
    val source = Class.forName("subjxform.engine.LittleEndianWords").getProtectionDomain.getCodeSource.getLocation
    assert(source.getPath.endsWith(".jar"), s"core was loaded from $source, not from its jar")
    assert(loadedVariant == "varhandle")
  }
}
