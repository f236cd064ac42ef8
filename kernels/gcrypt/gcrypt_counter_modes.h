// gcrypt_counter_modes.h: AES-CTR and AES-GCM through libgcrypt's
// GCRY_CIPHER_MODE_CTR and GCRY_CIPHER_MODE_GCM. The library must have been
// initialised (opening the gcrypt backend does it).
#pragma once

#include <memory>

#include "kernels/counter_modes.h"

namespace cryptobench {

std::unique_ptr<AesCtr> make_gcrypt_ctr();
std::unique_ptr<AesGcm> make_gcrypt_gcm();

}  // namespace cryptobench
