// subjxform: NATS subject transforms as Spark SQL functions.
//
//   scripts/sbt package   -> python/src/subjxform/jars/subjxform.jar (core + spark classes)
//   scripts/sbt test      -> tests of core and spark
//   scripts/sbt jar       -> same as package, prints the jar path

import java.nio.charset.StandardCharsets

// The single source of the project version (also read by pyproject.toml).
ThisBuild / version := IO.read((ThisBuild / baseDirectory).value / "version.txt", StandardCharsets.UTF_8).trim
ThisBuild / organization := "subjxform"
ThisBuild / scalaVersion := "2.13.18"

val sparkVersion     = sys.props.getOrElse("spark.version", "4.2.0")
val scalatestVersion = "3.2.20"
val ujsonVersion     = "4.3.2" // test-only: reading tests/golden/*.jsonl
val scalacheckVersion = "1.18.1" // test-only: property tests of the engine

lazy val jarTarget = settingKey[File]("Where the combined jar for the Python package is written")
lazy val jar       = taskKey[File]("Build the combined jar and copy it into the Python package")

ThisBuild / jarTarget := (ThisBuild / baseDirectory).value / "python" / "src" / "subjxform" / "jars" / "subjxform.jar"

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

lazy val commonSettings = Seq(
  scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17", "-encoding", "UTF-8"),
  javacOptions ++= Seq("--release", "17", "-encoding", "UTF-8"),
  libraryDependencies += "org.scalatest" %% "scalatest" % scalatestVersion % Test,
  // Tests run forked with the repo root as working directory, so they can open
  // tests/golden/transform_cases.jsonl by relative path. The absolute root is also
  // passed as -Dsubjxform.root=<repo root>.
  Test / fork := true,
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
      "-Dspark.ui.enabled=false"
    )
  },
  Test / envVars += ("SPARK_LOCAL_IP" -> "127.0.0.1"),
  Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"), // show durations
  Test / outputStrategy := Some(StdoutOutput)
)

lazy val root = (project in file("."))
  .aggregate(core, spark)
  .settings(
    name := "subjxform",
    publish / skip := true,
    Compile / packageBin / publishArtifact := false,
    jar := (spark / jar).value
  )

// Spark-free engine.
lazy val core = (project in file("jvm/core"))
  .settings(commonSettings)
  .settings(
    name := "subjxform-core",
    libraryDependencies ++= Seq(
      "com.lihaoyi" %% "ujson" % ujsonVersion % Test,
      "org.scalacheck" %% "scalacheck" % scalacheckVersion % Test),
    Test / javaOptions += "-Xmx1g"
  )

// Catalyst expressions / SQL function registration. Its jar also carries core's classes.
lazy val spark = (project in file("jvm/spark"))
  .dependsOn(core % "compile->compile;test->test")
  .settings(commonSettings)
  .settings(
    name := "subjxform-spark",
    libraryDependencies += "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
    Test / javaOptions ++= Seq("-Xmx4g") ++ sparkJavaModuleOptions,
    // fat-ish jar: own classes + core classes (no Scala library, no Spark)
    Compile / packageBin / mappings ++= (core / Compile / packageBin / mappings).value,
    // every `package` also drops the jar where the Python package looks for it
    Compile / packageBin := {
      val built = (Compile / packageBin).value
      val dest  = (ThisBuild / jarTarget).value
      IO.copyFile(built, dest, preserveLastModified = false)
      streams.value.log.info(s"Python jar: $dest")
      built
    },
    jar := {
      (Compile / packageBin).value
      (ThisBuild / jarTarget).value
    }
  )

// JMH benchmarks (not aggregated): `bash bench/run.sh --jmh` (see bench/README.md).
lazy val bench = (project in file("jvm/bench"))
  .dependsOn(core)
  .enablePlugins(JmhPlugin)
  .settings(
    name := "subjxform-bench",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17"),
    javacOptions ++= Seq("--release", "17", "-encoding", "UTF-8"),
    // runMain (CpuTimeBench, OutputSizes) in its own JVM, not sbt's
    Compile / run / fork := true,
    publish / skip := true
  )
