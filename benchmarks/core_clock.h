// core_clock.h: the core clock, measured. The TSC of this project's VMs runs
// slower than the cores (seen: 2.6 GHz TSC, 3.65-4.1 GHz cores), so cycles are
// counted with a chain of dependent multiplies of known latency instead.
#pragma once

namespace cryptobench::bench {

// measure_core_hz: the fastest of several ~20 ms samples (the clock is
// ramped up, and the slowest samples are the ones the scheduler interrupted).
double measure_core_hz();

// mean_core_hz: the mean of `samples` ~1 ms measurements: the clock as
// dependent chains see it now. On a shared VM it wanders (measured here: a
// standard deviation of 2.5% between 1-ms samples, 1.3% between 10-ms ones,
// and 3.5-4.1 GHz within minutes), and work running now sees the same
// average, so benchmarks and the AES limits are measured against it.
double mean_core_hz(int samples);

}  // namespace cryptobench::bench
