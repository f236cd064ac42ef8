// hand_written_ctr.cc: the AesCtr of the hand-written backends: the
// project's key schedule and the CTR kernel of the backend's table.
#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/hand_written_cipher.h"
#include "kernels/pkcs7.h"

namespace cryptobench {
namespace {

class HandWrittenCtr final : public AesCtr {
 public:
  explicit HandWrittenCtr(const aesni::BlockKernels& kernels) : kernels_(kernels) {}
  ~HandWrittenCtr() override { secure_wipe(&schedule_, sizeof schedule_); }

 protected:
  Error schedule_key(Bytes key) override {
    aesni::expand_key(key.data(), key.size(), &schedule_);
    return Error::kNone;
  }
  // The kernel counts through all 128 bits, so the message is never split.
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    kernels_.ctr_crypt(schedule_, counter, in, out, size);
    return Error::kNone;
  }

 private:
  const aesni::BlockKernels& kernels_;
  aesni::KeySchedule schedule_{};
};

}  // namespace

std::unique_ptr<AesCtr> HandWrittenBackend::make_ctr() const {
  return std::make_unique<HandWrittenCtr>(kernels_);
}

}  // namespace cryptobench
