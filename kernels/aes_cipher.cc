#include "kernels/aes_cipher.h"

#include <cstring>
#include <typeinfo>

namespace cryptobench {

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::kEcb:
      return "ecb";
    case Mode::kCbc:
      return "cbc";
    case Mode::kCtr:
      return "ctr";
    case Mode::kGcm:
      return "gcm";
  }
  return "?";
}

bool is_block_mode(Mode mode) { return mode == Mode::kEcb || mode == Mode::kCbc; }

Error AesCipher::set_key(Bytes key) {
  key_size_ = 0;  // any failure leaves the cipher unkeyed, never on the old key
  if (key.size() != 16 && key.size() != 24 && key.size() != 32) return Error::kKeyLength;
  const Error error = schedule_key(key);
  if (error == Error::kNone) key_size_ = key.size();
  return error;
}

Error AesCipher::check_iv(Bytes iv) const {
  const std::size_t expected = mode_ == Mode::kCbc ? kAesBlockSize : 0;
  return iv.size() == expected ? Error::kNone : Error::kIvLength;
}

Result AesCipher::encrypt(Padding padding, Bytes iv, Bytes in, MutableBytes out) {
  if (key_size_ == 0) return Result::failure(Error::kKeyNotSet);
  if (const Error e = check_iv(iv); e != Error::kNone) return Result::failure(e);
  const std::size_t full_blocks = in.size() / kAesBlockSize;
  const std::size_t tail = in.size() % kAesBlockSize;
  if (padding == Padding::kNone && tail != 0) return Result::failure(Error::kInputLength);
  const std::size_t out_size =
      padding == Padding::kPkcs7 ? pkcs7_padded_size(in.size()) : in.size();
  if (out.size() < out_size) return Result::failure(Error::kOutputTooSmall);

  const std::uint8_t* chain = iv.empty() ? nullptr : iv.data();
  if (padding == Padding::kPkcs7) {
    Block last;
    pkcs7_fill_last_block(in.data() + full_blocks * kAesBlockSize, tail, last.data());
    const Error e = encrypt_with_final(chain, in.data(), out.data(), full_blocks, last.data());
    secure_wipe(last.data(), last.size());
    if (e != Error::kNone) return Result::failure(e);
  } else if (full_blocks != 0) {
    const Error e = encrypt_blocks(chain, in.data(), out.data(), full_blocks);
    if (e != Error::kNone) return Result::failure(e);
  }
  return Result::success(out_size);
}

Result AesCipher::decrypt(Padding padding, Bytes iv, Bytes in, MutableBytes out) {
  if (key_size_ == 0) return Result::failure(Error::kKeyNotSet);
  if (const Error e = check_iv(iv); e != Error::kNone) return Result::failure(e);
  if (in.size() % kAesBlockSize != 0 || (padding == Padding::kPkcs7 && in.empty())) {
    return Result::failure(Error::kInputLength);
  }
  if (out.size() < in.size()) return Result::failure(Error::kOutputTooSmall);
  if (in.empty()) return Result::success(0);

  const std::uint8_t* chain = iv.empty() ? nullptr : iv.data();
  const std::size_t blocks = in.size() / kAesBlockSize;
  if (padding == Padding::kNone) {
    const Error e = decrypt_blocks(chain, in.data(), out.data(), blocks);
    if (e != Error::kNone) {
      secure_wipe(out.data(), in.size());
      return Result::failure(e);
    }
    return Result::success(in.size());
  }
  const Result r = decrypt_padded(chain, in.data(), out.data(), blocks);
  if (r.error == Error::kLibraryFailure) return r;
  // No branch on the verdict: the size is masked to 0 on failure.
  const std::size_t keep = 0 - static_cast<std::size_t>(r.error == Error::kNone);
  return Result{r.error, (in.size() - r.size) & keep};
}

Error AesCipher::encrypt_with_final(const std::uint8_t* iv, const std::uint8_t* in,
                                    std::uint8_t* out, std::size_t blocks,
                                    const std::uint8_t* final) {
  if (blocks != 0) {
    if (const Error e = encrypt_blocks(iv, in, out, blocks); e != Error::kNone) return e;
    if (iv != nullptr) iv = out + (blocks - 1) * kAesBlockSize;
  }
  return encrypt_blocks(iv, final, out + blocks * kAesBlockSize, 1);
}

Result AesCipher::decrypt_padded(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                                 std::size_t blocks) {
  const std::size_t length = blocks * kAesBlockSize;
  if (const Error e = decrypt_blocks(iv, in, out, blocks); e != Error::kNone) {
    secure_wipe(out, length);
    return Result::failure(e);
  }
  const std::size_t pad = pkcs7_padding_length(out + length - kAesBlockSize);
  if (pad == 0) {
    secure_wipe(out, length);
    return Result::failure(Error::kBadPadding);
  }
  return Result::success(pad);
}

Error AesCipher::encrypt_batch(Padding padding, std::span<BatchMessage> messages) {
  Error first = Error::kNone;
  const auto reject = [&first](BatchMessage& m, Error e) {
    m.result = Result::failure(e);
    if (first == Error::kNone) first = e;
  };
  for (BatchMessage& m : messages) {
    m.result = Result::failure(Error::kNone);
    const AesCipher* key = m.key != nullptr ? m.key : this;
    if (key_size_ == 0) {
      reject(m, Error::kKeyNotSet);
    } else if (!m.new_key.empty() && m.key == nullptr) {
      reject(m, Error::kKeyMismatch);  // a new key needs the message's own cipher
    } else if (!m.new_key.empty() && m.new_key.size() != 16 && m.new_key.size() != 24 &&
               m.new_key.size() != 32) {
      reject(m, Error::kKeyLength);
    } else if (m.new_key.empty() && key->key_size_ == 0) {
      reject(m, Error::kKeyNotSet);
    } else if (typeid(*key) != typeid(*this) || key->mode_ != mode_ ||
               (m.new_key.empty() ? key->key_size_ : m.new_key.size()) != key_size_) {
      reject(m, Error::kKeyMismatch);
    } else if (const Error e = check_iv(m.iv); e != Error::kNone) {
      reject(m, e);
    } else if (padding == Padding::kNone && m.in.size() % kAesBlockSize != 0) {
      reject(m, Error::kInputLength);
    } else if (m.out.size() <
               (padding == Padding::kPkcs7 ? pkcs7_padded_size(m.in.size()) : m.in.size())) {
      reject(m, Error::kOutputTooSmall);
    }
  }
  if (first != Error::kNone) {
    // Nothing is encrypted; the valid messages say so too.
    for (BatchMessage& m : messages) {
      if (m.result.error == Error::kNone) m.result = Result::failure(first);
    }
    return first;
  }
  // A cipher taking a new key must be that message's alone: claim each one
  // (its key size is set to a marker, the old one kept in the message's
  // result until the claim is released), and refuse any second use.
  constexpr std::size_t kClaimed = ~std::size_t{0};
  const std::size_t batch_key_size = key_size_;
  bool conflict = false;
  for (BatchMessage& m : messages) {
    if (m.new_key.empty()) continue;
    if (m.key->key_size_ == kClaimed) {
      conflict = true;
      break;
    }
    m.result.size = m.key->key_size_;
    m.key->key_size_ = kClaimed;
  }
  for (const BatchMessage& m : messages) {
    const AesCipher* key = m.key != nullptr ? m.key : this;
    conflict = conflict || (m.new_key.empty() && key->key_size_ == kClaimed);
  }
  if (conflict) {
    for (BatchMessage& m : messages) {
      if (!m.new_key.empty() && m.key->key_size_ == kClaimed) m.key->key_size_ = m.result.size;
    }
    return fail_all(messages, Error::kKeyMismatch);
  }
  // The new keys, a chunk at a time (no allocation); a cipher is unkeyed
  // until its new schedule is in place.
  constexpr std::size_t kChunk = 64;
  AesCipher* ciphers[kChunk];
  Bytes keys[kChunk];
  std::size_t pending = 0;
  Error keying = Error::kNone;
  const auto flush = [&]() {
    Error e = keying;
    if (e == Error::kNone) {
      try {
        e = schedule_keys({ciphers, pending}, {keys, pending});
      } catch (...) {
        // A library threw (bad_alloc): no cipher may keep the claim marker.
        for (BatchMessage& m : messages) {
          if (!m.new_key.empty() && m.key->key_size_ == kClaimed) m.key->key_size_ = 0;
          m.result = Result::failure(Error::kLibraryFailure);
        }
        throw;
      }
    }
    for (std::size_t i = 0; i < pending; ++i) {
      ciphers[i]->key_size_ = e == Error::kNone ? batch_key_size : 0;
    }
    pending = 0;
    keying = e;
  };
  for (BatchMessage& m : messages) {
    m.result = Result::failure(Error::kNone);
    if (m.new_key.empty()) continue;
    ciphers[pending] = m.key;
    keys[pending++] = m.new_key;
    if (pending == kChunk) flush();
  }
  if (pending != 0) flush();
  if (keying != Error::kNone) return fail_all(messages, keying);
  encrypt_checked_batch(padding, messages);
  for (BatchMessage& m : messages) {
    if (m.result.error != Error::kNone) return m.result.error;
  }
  return Error::kNone;
}

Error AesCipher::fail_all(std::span<BatchMessage> messages, Error e) {
  for (BatchMessage& m : messages) m.result = Result::failure(e);
  return e;
}

Error AesCipher::schedule_keys(std::span<AesCipher* const> ciphers, std::span<const Bytes> keys) {
  for (std::size_t i = 0; i < ciphers.size(); ++i) {
    if (const Error e = ciphers[i]->schedule_key(keys[i]); e != Error::kNone) return e;
  }
  return Error::kNone;
}

void AesCipher::encrypt_checked_batch(Padding padding, std::span<BatchMessage> messages) {
  for (BatchMessage& m : messages) {
    m.result = (m.key != nullptr ? m.key : this)->encrypt(padding, m.iv, m.in, m.out);
  }
}

}  // namespace cryptobench
