// fuzz_decrypt: decrypt-and-unpad on every usable backend, differential. The
// input is [mode/key-size byte][key][iv][ciphertext]; all backends must agree
// on accept or reject and on the plaintext, and a rejection must leave no
// plaintext behind.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "kernels/registry.h"

using namespace cryptobench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const Mode mode = data[0] & 1 ? Mode::kCbc : Mode::kEcb;
  const std::size_t key_size = 16 + 8 * ((data[0] >> 1) % 3);
  const std::size_t iv_size = mode == Mode::kCbc ? 16 : 0;
  if (size < 1 + key_size + iv_size) return 0;
  const Bytes key(data + 1, key_size);
  const Bytes iv(data + 1 + key_size, iv_size);
  const Bytes ct(data + 1 + key_size + iv_size, size - 1 - key_size - iv_size);

  struct Opened {
    std::unique_ptr<AesBackend> backend;
    BackendInfo info;
  };
  static const auto backends = [] {
    std::vector<Opened> list;
    for (const std::string& name : usable_backend_names()) {
      auto backend = open_backend(name);
      BackendInfo info = backend->info();
      list.push_back({std::move(backend), std::move(info)});
    }
    return list;
  }();
  bool first = true;
  Result agreed;
  std::vector<std::uint8_t> agreed_plain;
  for (const auto& [backend, info] : backends) {
    if (!info.offers(mode)) continue;  // a backend without the mode has nothing to compare
    auto cipher = backend->make_cipher(mode);
    if (cipher->set_key(key) != Error::kNone) std::abort();
    std::vector<std::uint8_t> out(ct.size(), 0xa5);
    const Result r = cipher->decrypt(Padding::kPkcs7, iv, ct, out);
    if (!r.ok()) {
      // No plaintext left: either untouched or wiped.
      const bool untouched =
          std::all_of(out.begin(), out.end(), [](std::uint8_t b) { return b == 0xa5; });
      const bool wiped = std::all_of(out.begin(), out.end(), [](std::uint8_t b) { return b == 0; });
      if (!untouched && !wiped) std::abort();
      out.clear();
    } else {
      out.resize(r.size);
    }
    // In place must give the same verdict and plaintext.
    std::vector<std::uint8_t> inplace(ct.begin(), ct.end());
    const Result r2 = cipher->decrypt(Padding::kPkcs7, iv, inplace, inplace);
    if (r2.error != r.error || (r2.ok() && !std::equal(out.begin(), out.end(), inplace.begin()))) {
      std::abort();
    }
    if (first) {
      agreed = r;
      agreed_plain = out;
      first = false;
    } else if (r.error != agreed.error || out != agreed_plain) {
      std::abort();
    }
  }
  return 0;
}
