// aesni_gcm.cc: GCM (gcm.h) on 128-bit AES-NI and PCLMULQDQ registers.
#include "kernels/aesni/gcm.h"

namespace cryptobench::aesni {

const GcmKernels& xmm_gcm_kernels() {
  static constexpr GcmKernels kTable = GcmWidth<Xmm>::table();
  return kTable;
}

}  // namespace cryptobench::aesni
