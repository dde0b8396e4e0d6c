// libFuzzer target: the tokenizer and shingler, and the simhash and min-hashes of their features.
// Input: byte 0 = unit, case folding, size range and method/weighting; byte 1 = shingle size;
// byte 2 = seed of the piece sizes; the rest is the text. Invariants: no crash or sanitizer report;
// any split into pieces gives the features of the whole; the default simhash is the one-bit
// min-hash sketch of the feature set (repeats numbered with 'frequency'), and method 'charikar'
// gives Charikar's double sums over the features, grouped as the weighting says; the min-hashes are
// those of the feature set.
#include <cmath>
#include <map>
#include <vector>

#include "charikar.h"
#include "fuzz_support.hpp"
#include "min_hashes.hpp"
#include "minhash_sketch.hpp"
#include "page_min_hashes.hpp"
#include "page_simhash.hpp"
#include "splitmix64.h"
#include "text_features.hpp"

using namespace simhash;

namespace {

uint64_t reference_simhash(const std::vector<uint64_t> &features, const PageOptions &options)
{
    if (options.method == Method::minhash) {
        std::vector<uint64_t> seen;  // the k-th repeat of f is sh_splitmix64_output(f + k * golden ratio)
        std::map<uint64_t, int> repeats;
        for (uint64_t f : features) {
            const int k = repeats[f]++;
            if (k == 0 || options.weighting == Weighting::frequency)
                seen.push_back(k == 0 ? f : sh_splitmix64_output(f + uint64_t(k) * UINT64_C(0x9e3779b97f4a7c15)));
        }
        MinHashSketch sketch;
        sketch.add(seen.data(), seen.size());
        return sketch.bits();
    }
    const Weighting weighting = options.weighting;
    std::map<uint64_t, int> counts;
    for (uint64_t f : features) ++counts[f];
    sh_charikar acc;
    sh_charikar_init(&acc);
    for (const auto &[f, n] : counts) {
        double w = 1.0;
        if (weighting == Weighting::frequency) w = n;
        if (weighting == Weighting::log) w = 1.0 + std::log(double(n));
        sh_charikar_add(&acc, f, w);
    }
    return sh_charikar_result(&acc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    PageOptions options;
    options.features.unit = (data[0] & 1) ? FeatureOptions::Unit::character : FeatureOptions::Unit::word;
    options.features.fold_case = (data[0] & 2) != 0;
    options.features.size = 1 + data[1] % ((data[0] & 4) ? kMaxShingleSize : 6);
    const Weighting weightings[] = {Weighting::distinct, Weighting::frequency, Weighting::distinct,
                                    Weighting::frequency, Weighting::log};
    const int combination = (data[0] >> 3) % 5;  // 0, 1: the default method; 2..4: Charikar
    options.method = combination < 2 ? Method::minhash : Method::charikar;
    options.weighting = weightings[combination];
    const auto *text = reinterpret_cast<const char *>(data + 3);
    const std::size_t len = size - 3;

    std::vector<uint64_t> whole;
    FeatureStream one(options.features);
    one.feed(text, len, whole);
    one.finish(whole);

    std::vector<uint64_t> split;
    FeatureStream many(options.features);
    fuzz::Pieces pieces(data[2], 1 + data[2] % 17);
    fuzz::feed_in_pieces(text, len, pieces, [&](const char *p, std::size_t n) { many.feed(p, n, split); });
    many.finish(split);
    fuzz::check(split == whole, "features depend on how the text is split");

    PageSimhash page(options);
    fuzz::Pieces page_pieces(data[2] + 2u, 32);
    fuzz::feed_in_pieces(text, len, page_pieces, [&](const char *p, std::size_t n) { page.feed(p, n); });
    fuzz::check(page.result() == reference_simhash(whole, options),
                "simhash differs from the sketch or Charikar's sums over the features");

    PageMinHashes legacy(options.features, false);
    fuzz::Pieces legacy_pieces(data[2] + 1u, 64);
    fuzz::feed_in_pieces(text, len, legacy_pieces, [&](const char *p, std::size_t n) { legacy.feed(p, n); });
    uint64_t got[kMinHashes], expected[kMinHashes];
    legacy.result(got);
    min_hashes(whole.data(), whole.size(), expected);
    for (int i = 0; i < kMinHashes; ++i) fuzz::check(got[i] == expected[i], "min-hashes differ from the feature set's");
    return 0;
}
