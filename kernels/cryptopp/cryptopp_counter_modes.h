// cryptopp_counter_modes.h: AES-CTR and AES-GCM through Crypto++'s own modes.
#pragma once

#include <memory>
#include <string>

#include "kernels/counter_modes.h"

namespace cryptobench {

std::unique_ptr<AesCtr> make_cryptopp_ctr();
std::unique_ptr<AesGcm> make_cryptopp_gcm();
// cryptopp_modes_path: what Crypto++ runs for CTR and GCM here.
std::string cryptopp_modes_path();

}  // namespace cryptobench
