// fuzz_gcm: AES-GCM on every usable backend that offers it, differential.
// Every backend that takes the key and nonce must seal to the same ciphertext
// and tag, open the genuine message to the plaintext, and refuse with kBadTag,
// its whole output zeroed, a message with any one bit flipped in the
// ciphertext, the AAD, the nonce or the tag; truncated tags likewise where a
// backend allows them. A key, nonce or tag length a backend does not offer
// must give its typed error and no output. Any violation aborts with a
// message naming the backend.
//
// Input: [flags][nonce length][AAD length][short tag][mutation count]
//        [key][nonce][AAD][mutations, 3 bytes each][plaintext: the rest]
//   flags: bits 0-1 key size (16, 24, 32, modulo 3); bit 2: nonce length from
//     its byte (1 + n % 64), else 12; bit 3: also seal and open in place.
//   short tag: a truncated tag length, 4 + n % 12.
//   mutation: target (byte % 4: ciphertext, AAD, nonce, tag; an empty one
//     passes to the next) and bit index (16 bits, little-endian, modulo the
//     target's bits). At most 8.
// A flipped bit is caught with certainty only by the full tag (a t-byte tag
// misses a change with probability 2^-8t), so data and nonce flips are
// checked against the 16-byte tag, and truncated tags with flips in the tag.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kernels/registry.h"

using namespace cryptobench;

namespace {

constexpr std::uint8_t kCanary = 0xa5;
constexpr std::size_t kFullTag = 16;
constexpr std::size_t kMaxMutations = 8;

using Buffer = std::vector<std::uint8_t>;

struct Message {
  Buffer key, nonce, aad, plain;
};

struct Member {
  std::string name;
  std::unique_ptr<AesBackend> backend;
  std::unique_ptr<AesGcm> gcm;
  GcmLimits limits;
};

const Message* current = nullptr;  // for the failure message

[[noreturn]] void fail(const std::string& backend, const std::string& what) {
  std::fprintf(stderr,
               "fuzz_gcm: backend %s: %s (key %zu bytes, nonce %zu, AAD %zu, plaintext %zu)\n",
               backend.c_str(), what.c_str(), current->key.size(), current->nonce.size(),
               current->aad.size(), current->plain.size());
  std::abort();
}

std::string error_name(Error e) { return std::string(describe(e)); }

bool all_bytes(const Buffer& b, std::uint8_t value) {
  return std::all_of(b.begin(), b.end(), [value](std::uint8_t x) { return x == value; });
}

// The usable backends that offer GCM, opened once, in registry order.
std::vector<Member>& members() {
  static std::vector<Member> list = [] {
    std::vector<Member> out;
    for (const std::string& name : usable_backend_names()) {
      std::unique_ptr<AesBackend> backend = open_backend(name);
      if (!backend->info().offers(Mode::kGcm)) continue;
      std::unique_ptr<AesGcm> gcm = backend->make_gcm();
      if (gcm == nullptr) {
        std::fprintf(stderr, "fuzz_gcm: backend %s lists GCM but make_gcm() gives nothing\n",
                     name.c_str());
        std::abort();
      }
      const GcmLimits limits = gcm->limits();
      out.push_back({name, std::move(backend), std::move(gcm), limits});
    }
    if (out.empty()) {
      std::fprintf(stderr, "fuzz_gcm: no usable backend offers GCM\n");
      std::abort();
    }
    // Which backends are compared, once: a run over none of them proves nothing.
    std::string names;
    for (const Member& m : out) names += " " + m.name + " (" + m.limits.describe() + ");";
    std::fprintf(stderr, "fuzz_gcm: %zu backends offer GCM:%s\n", out.size(), names.c_str());
    return out;
  }();
  return list;
}

// open_rejects: open must fail with `expected` and leave `out` all `fill`
// (0: wiped after a bad tag; the canary: a length refused before any work).
void open_rejects(Member& m, const Buffer& nonce, const Buffer& aad, const Buffer& ct,
                  const Buffer& tag, Error expected, std::uint8_t fill, const char* what) {
  Buffer out(ct.size(), kCanary);
  const Result r = m.gcm->open(nonce, aad, ct, tag, out);
  if (r.error != expected) {
    fail(m.name, std::string(what) + ": open returned '" + error_name(r.error) + "', expected '" +
                     error_name(expected) + "'");
  }
  if (!all_bytes(out, fill)) {
    fail(m.name, std::string(what) + ": open failed but left " +
                     (fill == 0 ? "output that is not all zero" : "output written"));
  }
}

void open_in_place_rejects(Member& m, const Buffer& nonce, const Buffer& aad, const Buffer& ct,
                           const Buffer& tag, const char* what) {
  Buffer buffer = ct;
  const Result r = m.gcm->open(nonce, aad, buffer, tag, buffer);
  if (r.error != Error::kBadTag) {
    fail(m.name, std::string(what) + ", in place: open returned '" + error_name(r.error) + "'");
  }
  if (!all_bytes(buffer, 0)) fail(m.name, std::string(what) + ", in place: buffer not zeroed");
}

void open_accepts(Member& m, const Message& msg, const Buffer& ct, const Buffer& tag, bool in_place,
                  const char* what) {
  Buffer out(ct.size(), kCanary);
  const Result r = m.gcm->open(msg.nonce, msg.aad, ct, tag, out);
  if (!r.ok()) fail(m.name, std::string(what) + ": open refused it: '" + error_name(r.error) + "'");
  if (r.size != msg.plain.size() || out != msg.plain) {
    fail(m.name, std::string(what) + ": open gave another plaintext");
  }
  if (in_place) {
    Buffer buffer = ct;
    const Result r2 = m.gcm->open(msg.nonce, msg.aad, buffer, tag, buffer);
    if (!r2.ok() || buffer != msg.plain) fail(m.name, std::string(what) + ": in place differs");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kHeader = 5;
  if (size < kHeader) return 0;
  const std::uint8_t flags = data[0];
  const std::size_t key_size = 16 + 8 * static_cast<std::size_t>((flags & 3) % 3);
  const std::size_t nonce_size = (flags & 4) != 0 ? 1 + data[1] % 64 : 12;
  const bool in_place = (flags & 8) != 0;
  const std::size_t short_tag = 4 + data[3] % 12;
  std::size_t pos = kHeader;
  if (size < pos + key_size + nonce_size) return 0;
  const auto take = [&](std::size_t n) {
    n = std::min(n, size - pos);
    Buffer b(data + pos, data + pos + n);
    pos += n;
    return b;
  };
  Message msg;
  msg.key = take(key_size);
  msg.nonce = take(nonce_size);
  msg.aad = take(data[2]);
  const Buffer mutation_bytes = take(3 * std::min<std::size_t>(data[4], kMaxMutations));
  msg.plain = take(size - pos);
  current = &msg;

  // Seal on every backend that takes the key and the nonce; they must agree.
  std::vector<Member*> sealed;
  Buffer ct, tag;
  std::string sealer;
  for (Member& m : members()) {
    const Error keyed = m.gcm->set_key(msg.key);
    if (!m.limits.allows_key(key_size)) {
      if (keyed != Error::kKeyNotOffered) {
        fail(m.name, "a key size its limits exclude: set_key returned '" + error_name(keyed) + "'");
      }
      continue;
    }
    if (keyed != Error::kNone) fail(m.name, "set_key failed: '" + error_name(keyed) + "'");
    Buffer out(msg.plain.size(), kCanary), t(kFullTag, kCanary);
    const Result r = m.gcm->seal(msg.nonce, msg.aad, msg.plain, out, t);
    if (!m.limits.allows_nonce(nonce_size)) {
      if (r.error != Error::kNonceLength) {
        fail(m.name,
             "a nonce length its limits exclude: seal returned '" + error_name(r.error) + "'");
      }
      open_rejects(m, msg.nonce, msg.aad, out, t, Error::kNonceLength, kCanary,
                   "a nonce length its limits exclude");
      continue;
    }
    if (!r.ok() || r.size != msg.plain.size()) {
      fail(m.name, "seal failed: '" + error_name(r.error) + "'");
    }
    if (sealed.empty()) {
      ct = out;
      tag = t;
      sealer = m.name;
    } else if (out != ct || t != tag) {
      fail(m.name,
           std::string(out != ct ? "ciphertext" : "tag") + " differs from " + sealer + "'s");
    }
    if (in_place) {
      Buffer buffer = msg.plain;
      Buffer t2(kFullTag);
      const Result r2 = m.gcm->seal(msg.nonce, msg.aad, buffer, buffer, t2);
      if (!r2.ok() || buffer != ct || t2 != tag) fail(m.name, "seal in place differs");
    }
    sealed.push_back(&m);
  }
  if (sealed.empty()) return 0;

  // The genuine message opens everywhere; a truncated tag where allowed.
  const Buffer short_tag_bytes(tag.begin(), tag.begin() + static_cast<std::ptrdiff_t>(short_tag));
  Buffer flipped_short = short_tag_bytes;
  // The first mutation's bit byte when there is one (the input may end inside it).
  const std::size_t short_bit = mutation_bytes.size() >= 2 ? mutation_bytes[1] : data[3] / 12u;
  flipped_short[short_bit / 8 % short_tag] ^= static_cast<std::uint8_t>(1u << (short_bit % 8));
  for (Member* m : sealed) {
    open_accepts(*m, msg, ct, tag, in_place, "the genuine message");
    if (m->limits.allows_tag(short_tag)) {
      Buffer out(msg.plain.size()), t(short_tag);
      const Result r = m->gcm->seal(msg.nonce, msg.aad, msg.plain, out, t);
      if (!r.ok() || out != ct || t != short_tag_bytes) {
        fail(m->name, std::to_string(short_tag) +
                          "-byte tag: seal's tag is not the first bytes of the full tag");
      }
      open_accepts(*m, msg, ct, short_tag_bytes, false, "a truncated tag");
      open_rejects(*m, msg.nonce, msg.aad, ct, flipped_short, Error::kBadTag, 0,
                   "a truncated tag with a bit flipped");
    } else {
      open_rejects(*m, msg.nonce, msg.aad, ct, short_tag_bytes, Error::kTagLength, kCanary,
                   "a tag length its limits exclude");
    }
  }

  // Each mutation: one bit flipped; every backend must refuse it.
  for (std::size_t i = 0; i + 3 <= mutation_bytes.size(); i += 3) {
    Buffer mutated[4] = {ct, msg.aad, msg.nonce, tag};
    std::size_t target = mutation_bytes[i] % 4u;
    while (mutated[target].empty()) target = (target + 1) % 4;  // the nonce never is
    Buffer& field = mutated[target];
    const std::size_t bit =
        (mutation_bytes[i + 1] | std::size_t{mutation_bytes[i + 2]} << 8) % (8 * field.size());
    field[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    static constexpr const char* kWhat[4] = {
        "a bit flipped in the ciphertext", "a bit flipped in the AAD", "a bit flipped in the nonce",
        "a bit flipped in the tag"};
    for (Member* m : sealed) {
      open_rejects(*m, mutated[2], mutated[1], mutated[0], mutated[3], Error::kBadTag, 0,
                   kWhat[target]);
      if (in_place)
        open_in_place_rejects(*m, mutated[2], mutated[1], mutated[0], mutated[3], kWhat[target]);
    }
  }
  return 0;
}
