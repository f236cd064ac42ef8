// vaes256_kernels.cc: the modes of wide_kernels.h on 256-bit VAES registers.
// Compiled with -mvaes -mavx2 and no AVX-512, so it runs on any VAES CPU.
#include "kernels/aesni/wide_kernels.h"
#include "kernels/vaes/vaes_kernels.h"

namespace cryptobench::vaes {

const aesni::BlockKernels& ymm_kernels() {
  static constexpr aesni::BlockKernels kTable =
      aesni::WideKernels<aesni::Ymm, aesni::kGroup>::table();
  return kTable;
}

}  // namespace cryptobench::vaes
