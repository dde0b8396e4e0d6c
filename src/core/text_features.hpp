// Page text -> features: the tokenizer and shingler behind simhash(text) and fingerprints(text).
//
// Tokens: maximal runs of word characters in the UTF-8 text. A word character is a letter (L*),
// a combining mark (M*), a digit or other number (N*) or a connector punctuation (Pc, e.g. '_'),
// by Unicode category (utf8proc). Characters of scripts written without spaces (Han, Hiragana,
// Katakana, Thai, Lao, Khmer, Myanmar) are tokens of their own. Bytes that are not valid UTF-8
// separate tokens. With fold_case every code point is mapped by Unicode's simple lowercase mapping
// (utf8proc_tolower), whatever the server's locale. Text is not normalized (NFC and NFD spellings
// of an accented letter are different tokens).
//
// Word shingles of size w: every w consecutive tokens; a text with 1..w-1 tokens has one shingle of
// all of them. Feature = XXH3-64 (seed 0) of the w token hashes written as little-endian 64-bit
// words, where a token hash is XXH3-64 (seed 0) of the token's (folded) UTF-8 bytes.
// Character shingles of size w: the tokens joined by single spaces, every w consecutive code
// points (one shingle of everything if shorter); feature = XXH3-64 (seed 0) of their UTF-8 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace simhash {

constexpr int kMaxShingleSize = 64;

struct FeatureOptions {
    enum class Unit { word, character } unit = Unit::word;
    int size = 3;
    bool fold_case = true;
};

class FeatureStream {
public:
    // Throws InvalidArgument for a size outside 1..kMaxShingleSize.
    explicit FeatureStream(const FeatureOptions &options);
    // Consumes the next piece of the text; pieces may split a UTF-8 sequence or a token anywhere.
    void feed(const char *data, std::size_t len, std::vector<uint64_t> &features);
    void finish(std::vector<uint64_t> &features);

private:
    void code_point(uint32_t cp, std::vector<uint64_t> &features);
    void end_token(std::vector<uint64_t> &features);
    void word(uint64_t token_hash, std::vector<uint64_t> &features);
    void character(uint32_t cp, std::vector<uint64_t> &features);
    void ascii_word_run(const unsigned char *p, std::size_t n);

    FeatureOptions options_;
    unsigned char pending_[4];          // an incomplete UTF-8 sequence at the end of a piece
    std::size_t npending_ = 0;
    std::string token_;                 // the token being read, folded, UTF-8
    // The last w token hashes (word unit) or code points (character unit), each stored twice, at
    // k and k + w, so that the last w are always contiguous, oldest first, ending at ring_pos_ + w.
    std::vector<uint64_t> token_ring_;
    std::vector<uint32_t> char_ring_;
    std::size_t ring_pos_ = 0;          // where the latest entry went
    std::size_t tokens_ = 0;            // tokens (word unit) or code points (character unit) so far
    bool space_due_ = false;            // character unit: a space separates the next token
};

}  // namespace simhash
