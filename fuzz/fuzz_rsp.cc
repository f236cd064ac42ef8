// fuzz_rsp: the line-based readers (NIST AESAVS and GCMVS .rsp, RFC 3686
// .txt) on arbitrary text: a clear VectorFileError or a file whose every
// record is runnable, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tools/vectors/vector_files.h"

namespace {

using namespace cryptobench::vectors;

void aesvs(const std::string& text) {
  const RspFile file = parse_rsp("fuzz.rsp", text);
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
}

void gcmvs(const std::string& text) {
  const GcmRspFile file = parse_gcm_rsp("fuzz.rsp", text);
  if (file.records.empty()) std::abort();
  for (const GcmRecord& r : file.records) {
    const std::size_t k = r.key.size();
    if (k != 16 && k != 24 && k != 32) std::abort();
    if (r.iv.empty() || r.iv.size() > 128 || r.tag.size() < 4 || r.tag.size() > 16) std::abort();
    if (r.fail ? (!file.decrypt || !r.plaintext.empty())
               : r.plaintext.size() != r.ciphertext.size()) {
      std::abort();
    }
  }
}

void rfc3686(const std::string& text) {
  const CtrFile file = parse_ctr_txt("fuzz.txt", text);
  if (file.records.empty()) std::abort();
  for (const CtrRecord& r : file.records) {
    const std::size_t k = r.key.size();
    if (k != 16 && k != 24 && k != 32) std::abort();
    if (r.counter.size() != 16 || r.plaintext.size() != r.ciphertext.size()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (void (*reader)(const std::string&) : {aesvs, gcmvs, rfc3686}) {
    try {
      reader(text);
    } catch (const VectorFileError&) {
    }
  }
  return 0;
}
