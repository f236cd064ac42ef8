// botan_counter_modes.cc: CTR through Botan's StreamCipher "CTR-BE(AES-n)"
// (its counter width defaults to the block size: the whole 16-byte block
// counts, as the interface does), GCM through AEAD_Mode "AES-n/GCM(t)".
// Objects are keyed once by set_key; a call sets only the counter block or
// the nonce and associated data.
//
// Botan's GCM fixes the tag length per object (GCM_Mode's constructor), so
// each tag length has its own pair of objects: the 16-byte pair is keyed in
// set_key, a shorter tag's pair the first time that length is used under
// the key (from a copy of the key in Botan's secure_vector, zeroed when
// freed). Botan's Cipher_Mode works in place: the input is copied to the
// output, its whole update_granularity() blocks go through process() and
// the rest, with the tag, through finish() in a reused buffer.
#include "kernels/botan/botan_counter_modes.h"

#include <botan/aead.h>
#include <botan/exceptn.h>
#include <botan/secmem.h>
#include <botan/stream_cipher.h>

#include <array>
#include <cstring>

namespace cryptobench {
namespace {

std::string aes_name(std::size_t key_size) { return "AES-" + std::to_string(key_size * 8); }

class BotanCtr final : public AesCtr {
 protected:
  Error schedule_key(Bytes key) override {
    try {
      if (key.size() != cipher_key_size_) {  // a new AES variant needs a new object
        cipher_key_size_ = 0;
        ctr_ = Botan::StreamCipher::create_or_throw("CTR-BE(" + aes_name(key.size()) + ")");
        cipher_key_size_ = key.size();
      }
      ctr_->set_key(key.data(), key.size());
    } catch (const Botan::Exception&) {
      cipher_key_size_ = 0;
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    try {
      ctr_->set_iv(counter, kAesBlockSize);
      ctr_->cipher(in, out, size);  // in place when out == in
    } catch (const Botan::Exception&) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

 private:
  std::unique_ptr<Botan::StreamCipher> ctr_;
  std::size_t cipher_key_size_ = 0;
};

class BotanGcm final : public AesGcm {
 public:
  // Botan 2.19 gcm.cpp: GCM_Mode takes tags of 8 (the comment there calls
  // it deprecated) and of 12 to 16 bytes, and throws Invalid_Argument for
  // any other; valid_nonce_length: any length but 0. Keys: AES-128/192/256.
  GcmLimits limits() const override {
    return {.min_nonce = 1, .min_tag = 12, .also_tags = 1u << 8};
  }

 protected:
  Error schedule_key(Bytes key) override {
    key_.assign(key.begin(), key.end());
    for (Pair& p : pairs_) p.keyed = false;
    return keyed(16) != nullptr ? Error::kNone : Error::kLibraryFailure;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    Pair* p = keyed(tag.size());
    if (p == nullptr) return Error::kLibraryFailure;
    Botan::AEAD_Mode& mode = *p->enc;
    try {
      const std::size_t bulk = start(mode, nonce, aad, in, out);
      tail_.assign(out + bulk, out + in.size());
      mode.finish(tail_);  // appends the tag
      const std::size_t rest = in.size() - bulk;
      if (tail_.size() != rest + tag.size()) return wiped(Error::kLibraryFailure);
      if (rest != 0) std::memcpy(out + bulk, tail_.data(), rest);
      std::memcpy(tag.data(), tail_.data() + rest, tag.size());
    } catch (const Botan::Exception&) {
      return wiped(Error::kLibraryFailure);
    }
    return wiped(Error::kNone);
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    Pair* p = keyed(tag.size());
    if (p == nullptr) return Error::kLibraryFailure;
    Botan::AEAD_Mode& mode = *p->dec;
    try {
      const std::size_t bulk = start(mode, nonce, aad, in, out);
      tail_.assign(out + bulk, out + in.size());
      tail_.insert(tail_.end(), tag.begin(), tag.end());
      // finish checks the tag (constant_time_compare) and throws on a
      // mismatch; the base class wipes what process() already decrypted.
      mode.finish(tail_);
      const std::size_t rest = in.size() - bulk;
      if (tail_.size() != rest) return wiped(Error::kLibraryFailure);
      if (rest != 0) std::memcpy(out + bulk, tail_.data(), rest);
    } catch (const Botan::Invalid_Authentication_Tag&) {
      return wiped(Error::kBadTag);
    } catch (const Botan::Exception&) {
      return wiped(Error::kLibraryFailure);
    }
    return wiped(Error::kNone);
  }

 private:
  struct Pair {
    std::unique_ptr<Botan::AEAD_Mode> enc, dec;
    std::size_t key_size = 0;  // the AES variant the objects were made for
    bool keyed = false;        // keyed with key_
  };

  // keyed: the pair for `tag_size`, keyed with the current key.
  Pair* keyed(std::size_t tag_size) {
    Pair& p = pairs_[tag_size];
    if (p.keyed) return &p;
    try {
      if (p.key_size != key_.size()) {
        p.key_size = 0;
        const std::string name = aes_name(key_.size()) + "/GCM(" + std::to_string(tag_size) + ")";
        p.enc = Botan::AEAD_Mode::create_or_throw(name, Botan::ENCRYPTION);
        p.dec = Botan::AEAD_Mode::create_or_throw(name, Botan::DECRYPTION);
        p.key_size = key_.size();
        tail_.reserve(p.enc->update_granularity() + 16);
      }
      p.enc->set_key(key_.data(), key_.size());
      p.dec->set_key(key_.data(), key_.size());
    } catch (const Botan::Exception&) {
      p = Pair{};
      return nullptr;
    }
    p.keyed = true;
    return &p;
  }

  // start: a new message on `mode`, with `in` copied to `out` and its whole
  // update_granularity() blocks processed; returns how many bytes that was.
  static std::size_t start(Botan::AEAD_Mode& mode, Bytes nonce, Bytes aad, Bytes in,
                           std::uint8_t* out) {
    static constexpr std::uint8_t kEmpty[1] = {};
    // reset() drops any half-done message; GHASH then takes the associated
    // data (always set: Botan would otherwise keep the previous message's).
    mode.reset();
    mode.set_associated_data(aad.empty() ? kEmpty : aad.data(), aad.size());
    mode.start(nonce.data(), nonce.size());
    if (in.empty()) return 0;
    if (out != in.data()) std::memcpy(out, in.data(), in.size());
    const std::size_t bulk = in.size() / mode.update_granularity() * mode.update_granularity();
    if (bulk != 0 && mode.process(out, bulk) != bulk) {
      throw Botan::Internal_Error("GCM process consumed a partial buffer");
    }
    return bulk;
  }

  // wiped: `e`, with the tail buffer (plaintext or keystream-derived bytes)
  // zeroed for the next call.
  Error wiped(Error e) {
    secure_wipe(tail_.data(), tail_.size());
    tail_.clear();
    return e;
  }

  Botan::secure_vector<std::uint8_t> key_;
  std::array<Pair, 17> pairs_;  // by tag length
  Botan::secure_vector<std::uint8_t> tail_;
};

}  // namespace

std::string botan_modes_path() {
  try {
    const auto gcm = Botan::AEAD_Mode::create_or_throw("AES-128/GCM", Botan::ENCRYPTION);
    const std::string ghash = gcm->provider();  // GCM_Mode::provider(): its GHASH's
    const std::string meaning = ghash == "clmul"   ? " = PCLMULQDQ"
                                : ghash == "vperm" ? " = SSSE3 vector permutes"
                                : ghash == "base"  ? " = portable C++"
                                                   : "";
    return "CTR-BE(AES-n) and GCM's counter run the AES provider above (encrypt_n over "
           "parallel_bytes() batches); AES-n/GCM(t) GHASH provider " +
           ghash + meaning;
  } catch (const Botan::Exception& e) {
    return std::string("GCM unavailable: ") + e.what();
  }
}

std::unique_ptr<AesCtr> make_botan_ctr() { return std::make_unique<BotanCtr>(); }
std::unique_ptr<AesGcm> make_botan_gcm() { return std::make_unique<BotanGcm>(); }

}  // namespace cryptobench
