#include "kernels/aesni/hand_written_cipher.h"

#include <algorithm>

#include "kernels/aesni/hand_written_gcm.h"
#include "kernels/pkcs7.h"

namespace cryptobench {

BackendInfo HandWrittenBackend::info() const {
  BackendInfo info{name_, "cryptobench", "hand-written", code_path_, project_codec_description(),
                   ""};
  info.register_bits = register_bits_;
  info.batch_lanes = batch_lanes_;
  info.codec_source = CodecSource::kProject;
  info.modes.push_back(Mode::kCtr);
  if (gcm_ != nullptr) {
    info.modes.push_back(Mode::kGcm);
  } else {
    info.not_offered =
        "GCM: the CPU lacks the carry-less multiply of this width "
        "(PCLMULQDQ; VPCLMULQDQ and, for 512 bits, AVX-512BW)";
  }
  return info;
}

std::unique_ptr<AesGcm> HandWrittenBackend::make_gcm() const {
  if (gcm_ == nullptr) return nullptr;
  return std::make_unique<HandWrittenGcm>(*gcm_);
}

HandWrittenCipher::~HandWrittenCipher() { secure_wipe(&schedule_, sizeof schedule_); }

Error HandWrittenCipher::schedule_key(Bytes key) {
  aesni::expand_key(key.data(), key.size(), &schedule_);
  return Error::kNone;
}

Error HandWrittenCipher::schedule_keys(std::span<AesCipher* const> ciphers,
                                       std::span<const Bytes> keys) {
  constexpr std::size_t kChunk = 64;  // AesCipher::encrypt_batch's chunk
  const std::uint8_t* key_bytes[kChunk];
  aesni::KeySchedule* schedules[kChunk];
  for (std::size_t done = 0; done < ciphers.size(); done += kChunk) {
    const std::size_t n = std::min(kChunk, ciphers.size() - done);
    for (std::size_t i = 0; i < n; ++i) {
      // AesCipher::encrypt_batch checked that every cipher is of this type.
      key_bytes[i] = keys[done + i].data();
      schedules[i] = &static_cast<HandWrittenCipher*>(ciphers[done + i])->schedule_;
    }
    kernels_.expand_keys(key_bytes, keys[done].size(), schedules, n);
  }
  return Error::kNone;
}

Error HandWrittenCipher::encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in,
                                        std::uint8_t* out, std::size_t blocks) {
  if (iv == nullptr) {
    kernels_.ecb_encrypt(schedule_, in, out, blocks);
  } else {
    kernels_.cbc_encrypt(schedule_, iv, in, out, blocks, nullptr);
  }
  return Error::kNone;
}

Error HandWrittenCipher::encrypt_with_final(const std::uint8_t* iv, const std::uint8_t* in,
                                            std::uint8_t* out, std::size_t blocks,
                                            const std::uint8_t* final) {
  if (iv == nullptr) return AesCipher::encrypt_with_final(iv, in, out, blocks, final);
  kernels_.cbc_encrypt(schedule_, iv, in, out, blocks, final);
  return Error::kNone;
}

Error HandWrittenCipher::decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in,
                                        std::uint8_t* out, std::size_t blocks) {
  if (iv == nullptr) {
    kernels_.ecb_decrypt(schedule_, in, out, blocks);
  } else {
    kernels_.cbc_decrypt(schedule_, iv, in, out, blocks);
  }
  return Error::kNone;
}

Result HandWrittenCipher::decrypt_padded(const std::uint8_t* iv, const std::uint8_t* in,
                                         std::uint8_t* out, std::size_t blocks) {
  const std::size_t pad = kernels_.decrypt_pkcs7(schedule_, iv, in, out, blocks);
  // kBadPadding when pad is 0, kNone otherwise, without a branch.
  const auto bad = static_cast<int>((static_cast<std::uint64_t>(pad) - 1) >> 63);
  return Result{static_cast<Error>(bad * static_cast<int>(Error::kBadPadding)), pad};
}

void HandWrittenCipher::encrypt_checked_batch(Padding padding, std::span<BatchMessage> messages) {
  if (mode() != Mode::kCbc) {
    AesCipher::encrypt_checked_batch(padding, messages);  // ECB is parallel already
    return;
  }
  // Chunks with their padded last blocks on the stack: no allocation.
  constexpr std::size_t kChunk = 64;
  aesni::CbcLane lanes[kChunk];
  alignas(16) std::uint8_t finals[kChunk][kAesBlockSize];
  while (!messages.empty()) {
    const std::size_t n = std::min(kChunk, messages.size());
    for (std::size_t i = 0; i < n; ++i) {
      BatchMessage& m = messages[i];
      // encrypt_batch checked that every key is a HandWrittenCipher.
      const auto* key = static_cast<const HandWrittenCipher*>(m.key != nullptr ? m.key : this);
      const std::size_t blocks = m.in.size() / kAesBlockSize;
      const std::uint8_t* final = nullptr;
      if (padding == Padding::kPkcs7) {
        pkcs7_fill_last_block(m.in.data() + blocks * kAesBlockSize, m.in.size() % kAesBlockSize,
                              finals[i]);
        final = finals[i];
      }
      lanes[i] = {&key->schedule_, m.iv.data(), m.in.data(), blocks, final, m.out.data()};
      m.result = Result::success((blocks + (final != nullptr ? 1 : 0)) * kAesBlockSize);
    }
    kernels_.cbc_encrypt_lanes(lanes, n);
    if (padding == Padding::kPkcs7) secure_wipe(finals, n * kAesBlockSize);
    messages = messages.subspan(n);
  }
}

}  // namespace cryptobench
