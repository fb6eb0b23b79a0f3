"""The JIT options of the JVMs a test run starts (tests/processes.py says why each)."""

from __future__ import annotations

from conftest import classic_only


def vm_option(spark, name: str) -> str:
    jvm = spark.sparkContext._jvm
    bean = jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
        jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean")
    )
    return bean.getVMOption(name).getValue()


@classic_only
def test_the_runs_own_session_has_the_default_tiers_and_large_stacks(spark):
    # (it ran on C1 alone, as the short-lived JVMs do: the portable golden test took five times as long)
    assert vm_option(spark, "TieredStopAtLevel") == "4"
    assert vm_option(spark, "ThreadStackSize") == str(4 * 1024)  # in KB: -Xss4m
