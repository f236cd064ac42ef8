// vaes256_gcm.cc: GCM (gcm.h) on 256-bit VAES and VPCLMULQDQ registers.
// Compiled with -mvaes -mvpclmulqdq -mavx2 and no AVX-512.
#include "kernels/aesni/gcm.h"

namespace cryptobench::vaes {

const aesni::GcmKernels& ymm_gcm_kernels() {
  static constexpr aesni::GcmKernels kTable = aesni::GcmWidth<aesni::Ymm>::table();
  return kTable;
}

}  // namespace cryptobench::vaes
