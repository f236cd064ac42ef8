// fuzz_pkcs7: the constant-time padding check against a plain, branching
// statement of RFC 5652's rule.
#include <cstdint>
#include <cstdlib>

#include "kernels/pkcs7.h"

using namespace cryptobench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kAesBlockSize) return 0;
  const std::uint8_t* block = data + size - kAesBlockSize;
  const std::size_t pad = block[kAesBlockSize - 1];
  bool valid = pad >= 1 && pad <= kAesBlockSize;
  for (std::size_t i = 0; valid && i < pad; ++i) valid = block[kAesBlockSize - 1 - i] == pad;
  if (pkcs7_padding_length(block) != (valid ? pad : 0)) std::abort();
  return 0;
}
