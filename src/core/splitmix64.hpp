// SplitMix64's output function: the seeds of both min-hash families come from it.
#pragma once

#include <cstdint>

namespace simhash {

constexpr uint64_t splitmix64_output(uint64_t state)
{
    uint64_t z = state;
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

// The (i+1)-th output of SplitMix64 started from `state`.
constexpr uint64_t splitmix64_nth(uint64_t state, int i)
{
    return splitmix64_output(state + uint64_t(i + 1) * UINT64_C(0x9e3779b97f4a7c15));
}

}  // namespace simhash
