// alloc_counter.h: heap allocations made by the calling thread, like
// `go test -benchmem`. Counting happens in malloc itself (interposed in
// alloc_counter.cc), so it covers the libraries' own allocations (OpenSSL's
// CRYPTO_malloc, Crypto++'s aligned buffers, Botan's vectors) and every
// operator new. Google Benchmark's MemoryManager is not used: in 1.7.1 it runs
// on thread 0 only and counts setup and framework allocations.
#pragma once

#include <cstdint>

namespace cryptobench::bench {

struct AllocStats {
  std::uint64_t count = 0;  // calls that returned new memory (malloc, calloc, realloc, aligned)
  std::uint64_t bytes = 0;  // bytes requested by those calls
};

// thread_alloc_stats: running totals for the calling thread.
AllocStats thread_alloc_stats();

// allocation_counting_enabled: false in sanitizer builds, whose runtimes own
// malloc; benchmarks then report no allocation counters.
bool allocation_counting_enabled();

}  // namespace cryptobench::bench
