// nettle_counter_modes.h: AES-CTR and AES-GCM through Nettle's ctr_crypt and
// gcm_aes{128,192,256}_*.
#pragma once

#include <memory>

#include "kernels/counter_modes.h"

namespace cryptobench {

std::unique_ptr<AesCtr> make_nettle_ctr();
std::unique_ptr<AesGcm> make_nettle_gcm();

}  // namespace cryptobench
