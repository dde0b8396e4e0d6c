// MurmurHash3's 64-bit finalizer: a bijection of 64-bit values that mixes every input bit into
// every output bit. Both min-hash families permute feature hashes with it.
#pragma once

#include <cstdint>

namespace simhash {

inline uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    return k;
}

}  // namespace simhash
