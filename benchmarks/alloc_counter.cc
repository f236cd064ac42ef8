// alloc_counter.cc: interposes the malloc family. The executable's
// definitions take precedence over libc's for every shared library in the
// process; each forwards to glibc's __libc_* entry points after counting into
// a thread_local (initial-exec TLS in the executable: no allocation, no lock).
#include "benchmarks/alloc_counter.h"

#include <cerrno>
#include <cstddef>

#ifdef CRYPTOBENCH_COUNT_ALLOCATIONS

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* p);
}

namespace {
thread_local cryptobench::bench::AllocStats t_stats;

inline void note(std::size_t bytes) {
  ++t_stats.count;
  t_stats.bytes += bytes;
}
}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  note(size);
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  note(n * size);
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
  note(size);
  return __libc_realloc(p, size);
}
void free(void* p) { __libc_free(p); }
void* memalign(std::size_t alignment, std::size_t size) {
  note(size);
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  note(size);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  note(size);
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}

namespace cryptobench::bench {
AllocStats thread_alloc_stats() { return t_stats; }
bool allocation_counting_enabled() { return true; }
}  // namespace cryptobench::bench

#else

namespace cryptobench::bench {
AllocStats thread_alloc_stats() { return {}; }
bool allocation_counting_enabled() { return false; }
}  // namespace cryptobench::bench

#endif
