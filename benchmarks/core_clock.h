// core_clock.h: the core clock, measured. The TSC of this project's VMs runs
// slower than the cores (seen: 2.6 GHz TSC, 3.65-4.1 GHz cores), so cycles are
// counted with a chain of dependent multiplies of known latency instead.
#pragma once

namespace cryptobench::bench {

// measure_core_hz: the fastest of several ~20 ms samples (the clock is
// ramped up, and the slowest samples are the ones the scheduler interrupted).
double measure_core_hz();

// sample_core_hz: the fastest of three ~0.5 ms samples: the clock as it is
// right now. The clock of a shared VM drifts (seen: 3.5-4.1 GHz within
// minutes), so each benchmark samples it right after its timed loop.
double sample_core_hz();

}  // namespace cryptobench::bench
