// fuzz_batch: AesCipher::encrypt_batch on every usable backend against one
// encrypt() per message on a fresh cipher. The input chooses the backend,
// mode, key size, padding and, per message, its length, IV, output space and
// key: the batch cipher's, its own keyed cipher, a new key, or a cipher that
// is also another message's (which must be refused). Either every message
// equals its one-at-a-time encryption, or the batch is refused, no output is
// touched and every cipher keeps its old key.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "kernels/registry.h"

using namespace cryptobench;

namespace {

// Reader: bytes of the input in order, zeros past its end.
struct Reader {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint8_t byte() { return at < size ? data[at++] : 0; }
  std::vector<std::uint8_t> bytes(std::size_t n) {
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = byte();
    return v;
  }
};

constexpr std::uint8_t kUntouched = 0xa5;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto backends = [] {
    std::vector<std::unique_ptr<AesBackend>> list;
    for (const std::string& name : usable_backend_names()) list.push_back(open_backend(name));
    return list;
  }();
  Reader in{data, size};
  const std::uint8_t setup = in.byte();
  static const auto infos = [] {
    std::vector<BackendInfo> list;
    for (const auto& b : backends) list.push_back(b->info());
    return list;
  }();
  const std::size_t which = in.byte() % backends.size();
  const AesBackend& backend = *backends[which];
  const Mode mode = setup & 1 ? Mode::kCbc : Mode::kEcb;
  if (!infos[which].offers(mode)) return 0;  // the backend lacks the mode
  const std::size_t key_size = 16 + 8 * ((setup >> 1) % 3);
  const Padding padding = setup & 8 ? Padding::kNone : Padding::kPkcs7;
  const std::size_t count = 1 + in.byte() % 40;

  auto shared = backend.make_cipher(mode);
  const std::vector<std::uint8_t> shared_key = in.bytes(key_size);
  if (shared->set_key(shared_key) != Error::kNone) std::abort();

  struct Message {
    std::vector<std::uint8_t> plain, iv, out, new_key, old_key;
    std::unique_ptr<AesCipher> own;
    int uses = -1;  // the message whose cipher this one also uses, or -1
  };
  std::vector<Message> messages(count);
  std::vector<BatchMessage> batch(count);
  for (std::size_t i = 0; i < count; ++i) {
    Message& m = messages[i];
    const std::uint8_t shape = in.byte();
    std::size_t length = in.byte() + 256 * (shape & 3);
    if (padding == Padding::kNone) length -= length % 16;
    m.plain = in.bytes(length);
    m.iv = in.bytes(mode == Mode::kCbc ? 16 : 0);
    m.out.assign(padding == Padding::kPkcs7 ? pkcs7_padded_size(length) : length, kUntouched);
    // Keys: the batch cipher's, an own keyed cipher, a new key for it, or
    // (rarely) an earlier message's cipher.
    const int key_mode = (shape >> 2) & 3;
    if (key_mode == 1 || key_mode == 2) {
      m.own = backend.make_cipher(mode);
      m.old_key = in.bytes(key_size);
      if (m.own->set_key(m.old_key) != Error::kNone) std::abort();
      if (key_mode == 2) m.new_key = in.bytes(key_size);
    } else if (key_mode == 3 && i > 0 && (shape & 0x30) == 0x30) {
      m.uses = static_cast<int>(in.byte() % i);
    }
  }
  // Half the batches get one fault in one message.
  const std::uint8_t fault = in.byte();
  if (setup & 16) {
    Message& m = messages[in.byte() % count];
    switch (fault % 4) {
      case 0:  // a wrong IV length
        if (m.iv.empty()) {
          m.iv.push_back(0);
        } else {
          m.iv.pop_back();
        }
        break;
      case 1:  // no room for the output
        if (!m.out.empty()) m.out.pop_back();
        break;
      case 2:  // a new key of a wrong length (or for a cipher-less message)
        m.new_key = in.bytes(1 + in.byte() % 40);
        break;
      default:  // unpadded input that is not whole blocks
        if (padding == Padding::kNone) {
          m.plain.push_back(0);
          m.out.push_back(kUntouched);
        }
        break;
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    Message& m = messages[i];
    AesCipher* key = m.own.get();
    if (m.uses >= 0) key = batch[static_cast<std::size_t>(m.uses)].key;
    batch[i] = {m.iv, m.plain, m.out, key, {}, m.new_key};
  }

  const Error e = shared->encrypt_batch(padding, batch);
  // The expected outcome, one message at a time on fresh ciphers.
  for (std::size_t i = 0; i < count; ++i) {
    const Message& m = messages[i];
    if (e != Error::kNone) {
      // Refused: nothing written, every result failed, every key unchanged.
      if (batch[i].result.ok()) std::abort();
      if (!std::all_of(m.out.begin(), m.out.end(),
                       [](std::uint8_t b) { return b == kUntouched; })) {
        std::abort();
      }
      continue;
    }
    if (!batch[i].result.ok()) std::abort();
    std::vector<std::uint8_t> key = shared_key;
    if (batch[i].key != nullptr) {
      // The cipher's owner: this message, or the one it shares with.
      const Message* owner = &m;
      while (owner->uses >= 0) owner = &messages[static_cast<std::size_t>(owner->uses)];
      key = owner->new_key.empty() ? owner->old_key : owner->new_key;
    }
    auto reference = backend.make_cipher(mode);
    if (reference->set_key(key) != Error::kNone) std::abort();
    std::vector<std::uint8_t> expected(m.out.size());
    const Result r = reference->encrypt(padding, m.iv, m.plain, expected);
    if (!r.ok() || r.size != batch[i].result.size ||
        !std::equal(expected.begin(), expected.begin() + static_cast<long>(r.size),
                    m.out.begin())) {
      std::abort();
    }
  }
  if (e != Error::kNone) {
    // Every cipher still encrypts as a fresh one set to its old key.
    const std::vector<std::uint8_t> block(16, 0x3c), iv(mode == Mode::kCbc ? 16 : 0, 0);
    for (const Message& m : messages) {
      if (!m.own) continue;
      if (m.own->key_size() != key_size) std::abort();
      auto fresh = backend.make_cipher(mode);
      std::vector<std::uint8_t> mine(16), theirs(16);
      if (fresh->set_key(m.old_key) != Error::kNone) std::abort();
      if (!m.own->encrypt(Padding::kNone, iv, block, mine).ok()) std::abort();
      if (!fresh->encrypt(Padding::kNone, iv, block, theirs).ok()) std::abort();
      if (mine != theirs) std::abort();
    }
  }
  return 0;
}
