// core_clock.h: the core clock, measured. The TSC of this project's VMs runs
// slower than the cores (seen: 2.6 GHz TSC, 3.65-4.1 GHz cores), so cycles are
// counted with a chain of dependent multiplies of known latency instead.
#pragma once

namespace cryptobench::bench {

// measure_core_hz: the fastest of several ~20 ms samples (the clock is
// ramped up, and the slowest samples are the ones the scheduler interrupted).
double measure_core_hz();

// current_core_hz: the median of `samples` ~0.25 ms measurements: the clock
// as dependent chains see it now. On a shared VM it wanders (measured here: a
// standard deviation of 2.5% between 1-ms samples, and 3.5-4.1 GHz within
// minutes), so benchmarks are measured against a sample taken around their
// loop. The median, not the mean: a sample the scheduler interrupted reads a
// clock several times too slow, and under load (a 2-core VM running five
// compilers) the mean of two 1-ms samples read 0.8-1.7 GHz against a real
// 3.15, which put figures below the hardware bound.
double current_core_hz(int samples);

}  // namespace cryptobench::bench
