// hand_written_gcm.h: the AesGcm of the hand-written backends: the project's
// key schedule and the GCM kernels of one register width (gcm_kernels.h:
// PCLMULQDQ GHASH with aggregated reduction, stitched with the AES rounds).
#pragma once

#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/gcm_kernels.h"
#include "kernels/counter_modes.h"

namespace cryptobench {

class HandWrittenGcm final : public AesGcm {
 public:
  explicit HandWrittenGcm(const aesni::GcmKernels& kernels) : kernels_(kernels) {}
  ~HandWrittenGcm() override;
  // The defaults: nonces of 1 to 2^16 bytes, tags of 4 to 16, every key size.
  GcmLimits limits() const override { return {}; }

 protected:
  Error schedule_key(Bytes key) override;
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override;
  // The tag recomputed over the ciphertext and compared in constant time.
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override;

 private:
  const aesni::GcmKernels& kernels_;
  aesni::KeySchedule schedule_{};
  aesni::GcmKey key_{};
};

}  // namespace cryptobench
