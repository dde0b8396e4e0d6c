#include "hamming_within.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "hamming.h"

namespace simhash {

// The definition, one hash at a time. The unsigned difference folds both bounds into one test.
int within_loops::portable(const uint64_t *hashes, int from, int n, uint64_t center, int least,
                           int most) noexcept
{
    if (most < least) return n;
    const uint32_t span = uint32_t(most - least);
    for (int i = from; i < n; ++i)
        if (uint32_t(sh_hamming(hashes[i], center) - least) <= span) return i;
    return n;
}

namespace {

#if defined(__x86_64__)
// Eight hashes a step. The last step loads only the hashes left: masked lanes read no memory, so
// the loop never touches hashes[n] or beyond.
__attribute__((target("avx512f,avx512vpopcntdq"))) int avx512_loop(const uint64_t *hashes, int from, int n,
                                                                  uint64_t center, int least, int most) noexcept
{
    if (most < least) return n;
    const __m512i c = _mm512_set1_epi64(int64_t(center));
    const __m512i lo = _mm512_set1_epi64(least);
    const __m512i span = _mm512_set1_epi64(int64_t(uint32_t(most - least)));
    for (int i = from; i < n; i += 8) {
        const __mmask8 live = n - i >= 8 ? __mmask8(0xFF) : __mmask8((1u << (n - i)) - 1);
        const __m512i h = _mm512_maskz_loadu_epi64(live, hashes + i);
        const __m512i d = _mm512_sub_epi64(_mm512_popcnt_epi64(_mm512_xor_si512(h, c)), lo);
        const __mmask8 hit = _mm512_mask_cmple_epu64_mask(live, d, span);
        if (hit) return i + __builtin_ctz(hit);
    }
    return n;
}
#endif

}  // namespace

within_loops::Function within_loops::avx512() noexcept
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq")) return avx512_loop;
#endif
    return nullptr;
}

int next_within(const uint64_t *hashes, int from, int n, uint64_t center, int least, int most) noexcept
{
    // The widest loop the CPU has, chosen once.
    static const within_loops::Function loop = [] {
        const within_loops::Function wide = within_loops::avx512();
        return wide ? wide : within_loops::portable;
    }();
    return loop(hashes, from, n, center, least, most);
}

}  // namespace simhash
