// fuzz_wycheproof: the Wycheproof JSON reader on arbitrary text: a clear
// VectorFileError or a file with cases, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tools/vectors/vector_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cryptobench::vectors;
  try {
    const WycheproofFile file =
        parse_wycheproof("fuzz.json", std::string(reinterpret_cast<const char*>(data), size));
    if (file.cases.empty()) std::abort();  // the reader promises at least one case
  } catch (const VectorFileError&) {
  }
  return 0;
}
