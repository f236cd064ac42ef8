// botan_counter_modes.h: AES-CTR and AES-GCM through Botan 2's StreamCipher
// ("CTR-BE(AES-n)") and AEAD_Mode ("AES-n/GCM(t)").
#pragma once

#include <memory>
#include <string>

#include "kernels/counter_modes.h"

namespace cryptobench {

std::unique_ptr<AesCtr> make_botan_ctr();
std::unique_ptr<AesGcm> make_botan_gcm();
// botan_modes_path: the providers Botan reports for its CTR and GCM here.
std::string botan_modes_path();

}  // namespace cryptobench
