import java.io.File
import java.util.zip.ZipFile

import scala.collection.JavaConverters._
import scala.collection.mutable

import org.objectweb.asm.{ClassReader, ClassWriter}
import org.objectweb.asm.commons.{ClassRemapper, Remapper}

/**
 * The NATS client (io.nats:jnats) and the part of Bouncy Castle it signs NKey challenges with, relocated under
 * `subjxform/shaded/` inside each line's jar: a user's own jnats (another release, on the same classpath) never
 * meets ours. Only what our classes reach is kept (class references followed from them, as a linker does): the
 * client's JetStream, connection and auth code, Bouncy Castle's Ed25519 and SHA-512 — not the 6 MB provider.
 *
 * A string constant is rewritten only where it names a relocated class or resource exactly (jnats reads
 * `/io/nats/jnats/version.properties`); protocol strings such as `io.nats.micro.v1.ping_response` stay.
 */
object Shading {
  val Prefix = "subjxform/shaded/"
  val RelocatedPackages = Seq("io/nats/", "org/bouncycastle/")

  private def relocated(internalName: String): Boolean = RelocatedPackages.exists(internalName.startsWith)

  /**
   * A relocated library's class files and resources (no META-INF: Bouncy Castle's signature files would no
   * longer match, its versioned classes are for its JCA provider, which nothing here loads).
   */
  def libraryEntries(jar: File): Seq[(String, Array[Byte])] = {
    val zip = new ZipFile(jar)
    try zip.entries.asScala.filter(e => !e.isDirectory && relocated(e.getName)).map { e =>
        val in = zip.getInputStream(e)
        try e.getName -> in.readAllBytes()
        finally in.close()
      }.toList
    finally zip.close()
  }

  /**
   * `roots` (our classes that use the client) and `library` (the libraries' entries) relocated; of the
   * library's classes only those reachable from the roots, and its resources that a kept class names.
   * Path in the jar -> bytes.
   */
  def shade(roots: Seq[(String, Array[Byte])], library: Seq[(String, Array[Byte])]): Seq[(String, Array[Byte])] = {
    val libraryPaths = library.map(_._1).toSet
    final class Relocator extends Remapper(org.objectweb.asm.Opcodes.ASM9) {
      val referenced = mutable.Set[String]()
      override def map(internalName: String): String = {
        referenced += internalName
        if (relocated(internalName)) Prefix + internalName else internalName
      }
      override def mapValue(value: Object): Object = value match {
        case s: String if libraryPaths(s.replace('.', '/') + ".class") =>
          referenced += s.replace('.', '/')
          (Prefix + s.replace('.', '/')).replace('/', '.')
        case s: String if s.startsWith("/") && libraryPaths(s.drop(1)) =>
          referenced += s.drop(1)
          "/" + Prefix + s.drop(1)
        case other => super.mapValue(other)
      }
    }
    def remap(bytes: Array[Byte]): (Array[Byte], Set[String]) = {
      val relocator = new Relocator
      val writer = new ClassWriter(0)
      new ClassReader(bytes).accept(new ClassRemapper(writer, relocator), 0)
      (writer.toByteArray, relocator.referenced.toSet)
    }
    val classes = (roots ++ library).collect {
      case (path, bytes) if path.endsWith(".class") =>
        path.stripSuffix(".class") -> remap(bytes)
    }.toMap
    // what the roots reach, following references (class names; resources by path)
    val kept = mutable.Set[String]()
    val todo = mutable.Stack[String](roots.map(_._1.stripSuffix(".class")): _*)
    while (todo.nonEmpty) {
      val name = todo.pop()
      if (kept.add(name)) classes.get(name).foreach(_._2.foreach(todo.push))
    }
    val shadedClasses = classes.collect {
      case (name, (bytes, _)) if kept(name) =>
        (if (relocated(name)) Prefix + name else name) + ".class" -> bytes
    }
    val resources =
      library.collect { case (path, bytes) if !path.endsWith(".class") && kept(path) => Prefix + path -> bytes }
    (shadedClasses ++ resources).toSeq.sortBy(_._1)
  }
}
