// vaes_kernels.h: the hand-written modes on VAES registers; the key schedule
// is the aesni one. Each table is compiled only with its own instruction set;
// callers check cpu_features() first.
#pragma once

#include "kernels/aesni/aesni_kernels.h"

namespace cryptobench::vaes {

// ymm_kernels: 256-bit registers, 2 blocks each (needs VAES and AVX2).
const aesni::BlockKernels& ymm_kernels();
// zmm_kernels: 512-bit registers, 4 blocks each (needs VAES and AVX-512F).
const aesni::BlockKernels& zmm_kernels();

}  // namespace cryptobench::vaes
