// vaes512_gcm.cc: GCM (gcm.h) on 512-bit VAES and VPCLMULQDQ registers, the
// same template as the 128- and 256-bit code. Compiled with -mavx512f
// -mavx512bw (byte shuffles) -mvaes -mvpclmulqdq.
#include "kernels/aesni/gcm.h"

namespace cryptobench::vaes {

const aesni::GcmKernels& zmm_gcm_kernels() {
  static constexpr aesni::GcmKernels kTable = aesni::GcmWidth<aesni::Zmm>::table();
  return kTable;
}

}  // namespace cryptobench::vaes
