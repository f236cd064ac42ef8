// fuzz_wycheproof: the Wycheproof JSON reader (AES-CBC-PKCS5 and AES-GCM) on
// arbitrary text: a clear VectorFileError or a file of runnable cases, never
// a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tools/vectors/vector_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cryptobench::vectors;
  try {
    const WycheproofFile file =
        parse_wycheproof("fuzz.json", std::string(reinterpret_cast<const char*>(data), size));
    if (file.cases.empty()) std::abort();
    const bool gcm = file.algorithm == WycheproofAlgorithm::kAesGcm;
    // Every case the reader hands out must be runnable as its algorithm says.
    for (const WycheproofCase& c : file.cases) {
      if (c.key.size() != 16 && c.key.size() != 24 && c.key.size() != 32) std::abort();
      if (!gcm && (c.iv.size() != 16 || !c.aad.empty() || !c.tag.empty() || c.acceptable))
        std::abort();
      if (gcm && (c.tag.size() < 4 || c.tag.size() > 16 || c.ct.size() != c.msg.size() ||
                  (c.iv.empty() && (c.valid || c.acceptable)))) {
        std::abort();
      }
    }
  } catch (const VectorFileError&) {
  }
  return 0;
}
