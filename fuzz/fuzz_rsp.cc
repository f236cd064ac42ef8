// fuzz_rsp: the NIST .rsp reader on arbitrary text: a clear VectorFileError
// or a file whose records are well formed, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tools/vectors/vector_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cryptobench::vectors;
  try {
    const RspFile file = parse_rsp("fuzz.rsp", std::string(reinterpret_cast<const char*>(data), size));
    for (const RspRecord& r : file.records) {
      if (r.plaintext.size() != r.ciphertext.size() || r.plaintext.empty()) std::abort();
    }
  } catch (const VectorFileError&) {
  }
  return 0;
}
