package subjxform.config

import org.scalatest.funsuite.AnyFunSuite

/**
 * Go's time.ParseDuration as nats-server's `-t` showed it (2.15.1, `ping_interval: "<text>"`): the values it takes,
 * and its errors in its words (tests/validate_corpus/7x_duration_*.conf compare whole configs with every binary).
 */
class GoDurationSuite extends AnyFunSuite {
  private val Second = 1000000000L

  test("the durations -t takes") {
    assert(GoDuration.parse("-1s") == Right(-Second))
    assert(GoDuration.parse("1h2m3.5s") == Right(3723 * Second + Second / 2))
    assert(GoDuration.parse("5\u00b5s") == Right(5000L))
    assert(GoDuration.parse("0") == Right(0L))
    assert(GoDuration.parse("+.5m") == Right(30 * Second))
  }

  test("the errors -t gives, in Go's words") {
    assert(GoDuration.parse("") == Left("time: invalid duration \"\""))
    assert(GoDuration.parse(".s") == Left("time: invalid duration \".s\""))
    assert(GoDuration.parse("1") == Left("time: missing unit in duration \"1\""))
    assert(GoDuration.parse("9999999999h") == Left("time: invalid duration \"9999999999h\""))
    assert(GoDuration.parse("1 s") == Left("time: unknown unit \" s\" in duration \"1 s\""))
    assert(GoDuration.parse("always") == Left("time: invalid duration \"always\""))
    // Go's quote: a byte that is no printable ASCII as \xNN
    assert(GoDuration.parse("1\u00e9") == Left("time: unknown unit \"\\xc3\\xa9\" in duration \"1\\xc3\\xa9\""))
  }

  test("format: Go's time.Duration.String (each printed by Go 1.26's fmt)") {
    val printed = Seq(0L -> "0s", 1L -> "1ns", 100L -> "100ns", 1500L -> "1.5\u00b5s", 1500000L -> "1.5ms",
      1000000000L -> "1s", 90000000000L -> "1m30s", 7200000000000L -> "2h0m0s", -1500000000L -> "-1.5s",
      3723004005006L -> "1h2m3.004005006s", 10000000000L -> "10s")
    for ((nanos, text) <- printed) assert(GoDuration.format(nanos) == text, nanos)
  }
}
