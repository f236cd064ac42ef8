// fuzz_codec: Base64/hex decoding, differential. The first byte picks the
// encoding; every backend's codec and the project's must agree on accepting
// or rejecting the rest, on the bytes decoded, and an accepted text must be
// canonical (re-encoding gives it back).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/registry.h"

using namespace cryptobench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Encoding encoding = data[0] & 1 ? Encoding::kHex : Encoding::kBase64;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  static const auto backends = [] {
    std::vector<std::unique_ptr<AesBackend>> list;
    for (const std::string& name : usable_backend_names()) list.push_back(open_backend(name));
    return list;
  }();

  std::vector<std::uint8_t> expected(decode_capacity(encoding, text.size()));
  const Result reference = project_codec().decode(encoding, text, expected);
  if (reference.ok()) {
    std::string again(encoded_size(encoding, reference.size), '\0');
    const Result r = project_codec().encode(encoding, {expected.data(), reference.size},
                                            {again.data(), again.size()});
    // Hex decoding accepts either case; compare case-insensitively there.
    std::string lowered(text);
    if (encoding == Encoding::kHex) {
      for (char& c : lowered) c = static_cast<char>(c >= 'A' && c <= 'F' ? c + 32 : c);
    }
    if (!r.ok() || again != lowered) std::abort();
  }
  for (const auto& backend : backends) {
    std::vector<std::uint8_t> out(decode_capacity(encoding, text.size()));
    const Result r = backend->codec().decode(encoding, text, out);
    if (r.ok() != reference.ok()) std::abort();
    if (r.ok() &&
        (r.size != reference.size ||
         !std::equal(out.begin(), out.begin() + static_cast<long>(r.size), expected.begin()))) {
      std::abort();
    }
  }
  return 0;
}
