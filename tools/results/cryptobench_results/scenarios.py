"""The one table of scenarios: for each, the figure that ranks backends (its
metric, unit and direction) and how the JMH export names it. The answer, the
JMH export and the report all read it, so they never disagree on what a
scenario measures."""
from dataclasses import dataclass

from .gbench import HIGHER_IS_BETTER


@dataclass(frozen=True)
class Scenario:
    metric: str       # the samples that rank backends
    unit: str         # what the figure is shown in
    scale: float      # metric value x scale = figure in unit
    jmh_method: str   # the JMH benchmark method name
    jmh_mode: str     # thrpt or avgt

    @property
    def higher_is_better(self):
        return HIGHER_IS_BETTER[self.metric]

    def figures(self, benchmark):
        return [x * self.scale for x in benchmark.samples.get(self.metric) or []]


# Throughput of plaintext bytes unless the scenario's seed reports another figure.
DEFAULT = Scenario("bytes_per_second", "MB/s", 1e-6, "throughput", "thrpt")
SCENARIOS = {
    "seed000": Scenario("ops_per_ms", "ops/ms", 1.0, "ops_per_ms", "thrpt"),
    # The seed-000 roundtrip in AES-128-GCM: the same figure, to set beside it.
    "seed000-gcm": Scenario("ops_per_ms", "ops/ms", 1.0, "ops_per_ms", "thrpt"),
    "seed002": Scenario("items_per_second", "ops/s", 1.0, "ops_per_s", "thrpt"),
    "seed003": Scenario("time_ns", "ns/op", 1.0, "time", "avgt"),
    "keysetup": Scenario("items_per_second", "setups/s", 1.0, "setups_per_s", "thrpt"),
    # Seed 001's TCP ping-pong: wall time over pings, in µs, as the seed reports it.
    "pingpong": Scenario("time_ns", "us/ping", 1e-3, "us_per_ping", "avgt"),
}


def of(benchmark):
    return SCENARIOS.get(benchmark.scenario, DEFAULT)
