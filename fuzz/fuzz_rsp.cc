// fuzz_rsp: the NIST .rsp reader on arbitrary text: a clear VectorFileError
// or a file whose every record is runnable, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tools/vectors/vector_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cryptobench::vectors;
  try {
    const RspFile file =
        parse_rsp("fuzz.rsp", std::string(reinterpret_cast<const char*>(data), size));
    // Every record the reader hands out must be runnable as the file's mode
    // and kind say.
    for (const RspRecord& r : file.records) {
      const std::size_t k = r.key.size();
      if (k != 16 && k != 24 && k != 32) std::abort();
      if (r.iv.size() != (file.mode == cryptobench::Mode::kCbc ? 16u : 0u)) std::abort();
      if (r.plaintext.empty() || r.plaintext.size() % 16 != 0) std::abort();
      if (r.plaintext.size() != r.ciphertext.size()) std::abort();
      if (file.kind == RspKind::kMonteCarlo && r.plaintext.size() != 16) std::abort();
    }
  } catch (const VectorFileError&) {
  }
  return 0;
}
