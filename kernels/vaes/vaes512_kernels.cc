// vaes512_kernels.cc: the modes of wide_kernels.h on 512-bit VAES registers.
// Compiled with -mvaes -mavx512f.
#include "kernels/aesni/wide_kernels.h"
#include "kernels/vaes/vaes_kernels.h"

namespace cryptobench::vaes {

const aesni::BlockKernels& zmm_kernels() {
  // Multi-buffer: at most 4 zmm (16 lanes). Each VAESENC zmm takes the one
  // 512-bit AES port for a cycle and has a latency of about 3, so 4
  // independent chains fill it; more only add gather and scatter work.
  static constexpr aesni::BlockKernels kTable = aesni::WideKernels<aesni::Zmm, 4>::table();
  return kTable;
}

}  // namespace cryptobench::vaes
