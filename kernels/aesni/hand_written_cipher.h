// hand_written_cipher.h: the AesCipher and AesBackend of the hand-written
// backends (aesni, vaes256, vaes512): the project's key schedule, the modes
// at the register width of the kernel table they are given, the project's
// codec; no KDF of their own (the registry provides a library's).
#pragma once

#include <memory>
#include <string>

#include "kernels/aes_cipher.h"
#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/gcm_kernels.h"
#include "kernels/backend.h"

namespace cryptobench {

class HandWrittenCipher final : public AesCipher {
 public:
  HandWrittenCipher(Mode mode, const aesni::BlockKernels& kernels)
      : AesCipher(mode), kernels_(kernels) {}
  ~HandWrittenCipher() override;

 protected:
  Error schedule_key(Bytes key) override;
  // The kernel table's expand_keys: the schedules interleaved.
  Error schedule_keys(std::span<AesCipher* const> ciphers, std::span<const Bytes> keys) override;
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override;
  Error encrypt_with_final(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                           std::size_t blocks, const std::uint8_t* final) override;
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override;
  Result decrypt_padded(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                        std::size_t blocks) override;
  // CBC: the messages go through the multi-buffer kernel, one per lane.
  void encrypt_checked_batch(Padding padding, std::span<BatchMessage> messages) override;

 private:
  const aesni::BlockKernels& kernels_;
  aesni::KeySchedule schedule_{};
};

class HandWrittenBackend final : public AesBackend {
 public:
  // register_bits / batch_lanes: BackendInfo's facts for this kernel table;
  // gcm: the GCM kernels of the same width (GCM is offered when not null).
  HandWrittenBackend(std::string name, std::string code_path, const aesni::BlockKernels& kernels,
                     unsigned register_bits, unsigned batch_lanes,
                     const aesni::GcmKernels* gcm = nullptr)
      : name_(std::move(name)),
        code_path_(std::move(code_path)),
        kernels_(kernels),
        register_bits_(register_bits),
        batch_lanes_(batch_lanes),
        gcm_(gcm) {}
  BackendInfo info() const override;
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<HandWrittenCipher>(mode, kernels_);
  }
  // make_ctr: the table's CTR kernel (hand_written_ctr.cc).
  std::unique_ptr<AesCtr> make_ctr() const override;
  std::unique_ptr<AesGcm> make_gcm() const override;
  const TextCodec& codec() const override { return project_codec(); }

 private:
  std::string name_, code_path_;
  const aesni::BlockKernels& kernels_;
  unsigned register_bits_, batch_lanes_;
  const aesni::GcmKernels* gcm_;
};

}  // namespace cryptobench
