// vaes512_kernels.cc: the modes of wide_kernels.h on 512-bit VAES registers.
// Compiled with -mvaes -mavx512f.
#include "kernels/aesni/wide_kernels.h"
#include "kernels/vaes/vaes_kernels.h"

namespace cryptobench::vaes {

const aesni::BlockKernels& zmm_kernels() {
  static constexpr aesni::BlockKernels kTable =
      aesni::WideKernels<aesni::Zmm, aesni::kGroup>::table();
  return kTable;
}

}  // namespace cryptobench::vaes
