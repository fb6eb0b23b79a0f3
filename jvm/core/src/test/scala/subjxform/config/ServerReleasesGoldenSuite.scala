package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.{Golden, InvalidTransformException, ServerVersion, SubjectTransform}

/**
 * With a nats-server release chosen, the engine agrees with everything that release's real binary answered, for
 * every published release (`ServerVersion.Measured`): its line's golden files
 * (tests/golden/servers/<line>/) with its own records in their place (tests/golden/releases/<release>.jsonl;
 * regenerate with `python3 tests/server_releases_golden.py`). The verdicts, error texts and delivered subjects
 * of the transform and mapping cases, each stream scenario's verdict and whether a source takes nothing, and the
 * probes' verdicts and subjects. No server is started; tests/test_server_releases.py checks what needs Spark.
 */
class ServerReleasesGoldenSuite extends AnyFunSuite {
  import Golden._

  private val releases = ServerVersion.all.flatMap(v => ServerVersion.Measured(v.line).map(p => s"${v.line}.$p"))

  private def transformFailures(release: String, cases: Seq[TransformCase]): Seq[String] = {
    val version = ServerVersion.parse(release)
    cases.flatMap { c =>
      val outcome =
        try {
          val tr = SubjectTransform.compile(c.src, c.dest, false, version)
          if (!c.accepted) Some(s"accepted; expected ${c.error.orNull}")
          else c.subject match {
            case Some(s) if c.expected.isDefined || c.randomPattern.isDefined =>
              val actual = Golden.run(tr, s)
              if (c.agrees(actual)) None
              else Some(s"gave ${Option(actual).map(new String(_, UTF_8))}; expected ${c.expectedText}")
            case _ => None
          }
        } catch {
          case e: InvalidTransformException =>
            if (c.error.contains(e.natsMessage)) None
            else Some(s"got  ${e.natsMessage}\n      want ${c.error.getOrElse("accepted")}")
        }
      outcome.map(o => s"${c.id}: ${c.src} -> ${c.dest} on ${c.subject.orNull}: $o")
    }
  }

  private def mapFailures(release: String, cases: Seq[MapCase]): Seq[String] = {
    val version = ServerVersion.parse(release)
    cases.flatMap { c =>
      val outcome =
        try {
          val table = MappingTable.compile(c.mappings, version)
          if (!c.accepted) Some(s"accepted; expected ${c.error.orNull}")
          else {
            val actual = table(c.subject)
            if (c.expected.forall(_.orNull == actual)) None else Some(s"gave $actual, expected ${c.expected}")
          }
        } catch {
          case e: InvalidMappingsException =>
            if (e.problems.exists(p => c.error.contains(p.message))) None
            else Some(s"got ${e.problems.map(_.message)}, want ${c.error.getOrElse("accepted")}")
        }
      outcome.map(o => s"${c.id}: ${c.mappings} on ${c.subject}: $o")
    }
  }

  private def plan(config: ujson.Value, version: ServerVersion): Either[(String, Int), StreamPlan] =
    try Right(StreamConfig.plan(StreamConfigJson.parse(ujson.write(config)), version))
    catch { case e: InvalidStreamConfigException => Left((e.description, e.errCode)) }

  /**
   * Refused by both with the same code and text (the engine may name the culprits after it, in parentheses:
   * `source filters can not overlap ("o.*.*" and "o.k.*")`), or accepted by both; a failure's text otherwise.
   */
  private def verdictFailure(release: String, config: ujson.Value, error: ujson.Value): Option[String] = {
    val theirs = if (error.isNull) None else Some((error(0).str, error(1).num.toInt))
    (plan(config, ServerVersion.parse(release)), theirs) match {
      case (Right(_), None) => None
      case (Left((ours, code)), Some((description, theirCode)))
          if code == theirCode && (ours == description || ours.startsWith(description + " (")) => None
      case (ours, _) =>
        Some(s"${ujson.write(config)}: nats-server $release ${theirs.getOrElse("created it")}, engine " +
          ours.fold(_.toString, _ => "created it"))
    }
  }

  private def streamFailures(release: String, records: Seq[ujson.Value]): Seq[String] =
    records.flatMap { r =>
      verdictFailure(release, r("config"), r("error")).orElse {
        plan(r("config"), ServerVersion.parse(release)).toOption.flatMap { p =>
          // A source whose consumer fails shows the error in STREAM.INFO, or between two retries only stores
          // nothing (a scenario whose filters would take something).
          val failed = !r("inactive").isNull || (r("stored").obj.isEmpty && Set("overlap", "empty_src")(r("kind").str))
          if (failed == p.origins.exists(_.inactive.isDefined)) None
          else Some(s"${ujson.write(r("config"))}: nats-server $release's source ${if (failed) "took nothing"
              else
                "worked"}, engine ${p.origins.map(_.inactive)}")
        }
      }
    }

  private def report(failures: Seq[String]): String =
    failures.take(30).mkString("\n", "\n", s"\n(${failures.size} failures)")

  test("every published release was measured, and the line's own release is its line's golden files") {
    assert(releases.size == 76 && releases.contains("2.10.0") && releases.contains("2.15.3"))
    for (release <- releases) {
      val golden = releaseGolden(release)
      assert(golden.release == release && golden.line == ServerVersion.parse(release).line)
      if (ServerVersion.parse(golden.line).release == release)
        assert(golden.records.forall(_.obj.contains("probe")), s"$release: records of its own")
    }
  }

  for (release <- releases) {
    test(s"$release: every transform case gets that binary's verdict, error text and delivered subject") {
      val cases = transformCasesOfRelease(release)
      assert(cases.size > 2000 && cases.count(_.accepted) > 1000 && cases.count(!_.accepted) > 300)
      val failures = transformFailures(release, cases)
      assert(failures.isEmpty, report(failures))
    }

    test(s"$release: every mapping table case gets that binary's verdict, error text and delivered subject") {
      val cases = mapCasesOfRelease(release)
      assert(cases.size > 200)
      val failures = mapFailures(release, cases)
      assert(failures.isEmpty, report(failures))
    }

    test(s"$release: every stream scenario gets that binary's verdict, and a source takes nothing where it did") {
      val records = releaseGolden(release).cases("streams")
      assert(records.size > 200)
      val failures = streamFailures(release, records)
      assert(failures.isEmpty, report(failures))
    }

    test(s"$release: the probes' transforms, streams and import get that binary's verdicts and subjects") {
      val golden = releaseGolden(release)
      val version = ServerVersion.parse(release)
      val transforms = golden.probe("transforms")("cases").arr.toSeq.flatMap { c =>
        val theirs = c("error").strOpt.map(Left(_)).getOrElse(Right(c("delivered").strOpt.orNull))
        val ours =
          try Right(SubjectTransform.compile(c("src").str, c("dest").str, false, version)(c("subject").str))
          catch { case e: InvalidTransformException => Left(e.natsMessage) }
        if (ours == theirs) None else Some(s"${c("dest").str}: nats-server $release $theirs, engine $ours")
      }
      assert(transforms.isEmpty, report(transforms))
      val streams = golden.probe("streams")
      val failures = streams("configs").arr.toSeq.flatMap(cfg =>
        verdictFailure(release, cfg, streams("verdicts")(cfg("name").str)))
      assert(failures.isEmpty, report(failures))
      val imported = golden.probe("import_left")
      val errors = Accounts.plan(imported("config").str, version).errors.map(_.message)
      imported("error").strOpt match {
        case Some(reason) => assert(errors.exists(_.endsWith(reason)), (errors, reason))
        case None => assert(errors.isEmpty, errors)
      }
    }

    test(s"$release: an account's {{account-hash()}} mapping gets that binary's verdict and subject") {
      val probe = releaseGolden(release).probe("account_functions")
      val plan = Accounts.plan(probe("config").str, ServerVersion.parse(release))
      probe("error").strOpt match {
        case Some(reason) => assert(plan.errors.map(_.message).exists(_.endsWith(reason)), (plan.errors, reason))
        case None =>
          assert(plan.errors.isEmpty, plan.errors)
          val table = MappingTable.compile(ConfValue.confText(plan.accounts.head.mappings.get),
            ServerVersion.parse(
              release), plan.accounts.head.id)
          assert(probe("delivered").arr.map(_.str).toSeq == Seq(table("orders.x")))
      }
      // the table's field says whether the release republishes to a reserved destination
      assert(probe("republished").arr.isEmpty == ServerVersion.parse(release).suppressesReservedRepublish)
    }
  }

  test("the lines' golden files differ where the binaries do (else the per-line proof would prove little)") {
    val newest = transformCasesOf("2.15").map(c => c.id -> c).toMap
    def differing(line: String) = transformCasesOf(line).count { c =>
      val n = newest(c.id)
      c.accepted != n.accepted || c.error != n.error || c.expected != n.expected
    }
    assert(differing("2.10") > differing("2.12") && differing("2.12") > 0)
    val shared = transformCases.map(_.id).toSet
    assert(transformCasesOf("2.15").filter(c => shared.contains(c.id)).map(c => (c.id, c.accepted, c.error)) ==
      transformCases.filter(c => newest.contains(c.id)).map(c => (c.id, c.accepted, c.error)))
  }

  test("every line's golden file has non-ASCII subjects through the byte-counting functions, cut inside characters") {
    for (version <- ServerVersion.all) {
      val bytes = transformCasesOf(version.line).filter(c => c.id.startsWith("bytes-") && c.accepted)
      val cut = bytes.flatMap(_.expected.flatten.toList).count(b => !isUtf8(b.toArray))
      assert(bytes.size > 60 && cut > 10, s"${version.line}: ${bytes.size} accepted, $cut not UTF-8")
    }
  }

  private def isUtf8(b: Array[Byte]): Boolean =
    try { UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b)); true }
    catch { case _: java.nio.charset.CharacterCodingException => false }
}
