// hand_written_cipher.h: the AesCipher of the hand-written backends (aesni,
// vaes256, vaes512): the project's key schedule, and the modes at the
// register width of the kernel table it is given.
#pragma once

#include "kernels/aes_cipher.h"
#include "kernels/aesni/aesni_kernels.h"

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

}  // namespace cryptobench
