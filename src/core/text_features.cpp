#include "text_features.hpp"

#include <string>

#include <utf8proc.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core_errors.hpp"
#include "utf8_encode.hpp"

namespace simhash {
namespace {

bool is_unsegmented_script(uint32_t cp)
{
    return (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x3FFFF) ||  // Han
           (cp >= 0x3040 && cp <= 0x30FF) ||                                       // kana
           (cp >= 0x0E00 && cp <= 0x0EFF) ||                                       // Thai, Lao
           (cp >= 0x1780 && cp <= 0x17FF) || (cp >= 0x1000 && cp <= 0x109F);       // Khmer, Myanmar
}

bool is_word_character(uint32_t cp)
{
    switch (utf8proc_category(utf8proc_int32_t(cp))) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_PC:
        return true;
    default:
        return false;
    }
}

// ASCII bytes by table: 0 = not a word character, otherwise the byte itself, lower-cased when
// folding (the ASCII word characters are the letters, digits and '_', whatever utf8proc says of
// the rest of Unicode).
struct AsciiTables {
    unsigned char keep[128];
    unsigned char fold[128];
};

constexpr AsciiTables make_ascii_tables()
{
    AsciiTables t{};
    for (unsigned c = 0; c < 128; ++c) {
        const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        t.keep[c] = word ? static_cast<unsigned char>(c) : 0;
        t.fold[c] = word ? static_cast<unsigned char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c) : 0;
    }
    return t;
}

constexpr AsciiTables kAscii = make_ascii_tables();

// Length of the UTF-8 sequence a lead byte starts (0: not a lead byte).
std::size_t sequence_length(unsigned char c)
{
    if (c >= 0xC2 && c <= 0xDF) return 2;
    if (c >= 0xE0 && c <= 0xEF) return 3;
    if (c >= 0xF0 && c <= 0xF4) return 4;
    return 0;
}

// ASCII words up to this long are hashed without going through token_.
constexpr std::size_t kShortToken = 64;

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// XXH3-64 of 64-bit words written as little-endian bytes.
uint64_t hash_le64_words(const uint64_t *words, std::size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return XXH3_64bits(words, 8 * n);  // the words in memory are already those bytes
#else
    unsigned char bytes[8 * kMaxShingleSize];
    for (std::size_t i = 0; i < n; ++i)
        for (int b = 0; b < 8; ++b) bytes[8 * i + b] = static_cast<unsigned char>(words[i] >> (8 * b));
    return XXH3_64bits(bytes, 8 * n);
#endif
}

// XXH3-64 of the UTF-8 bytes of code points.
uint64_t hash_code_points(const uint32_t *cps, std::size_t n)
{
    char bytes[4 * kMaxShingleSize];
    std::size_t len = 0;
    for (std::size_t i = 0; i < n; ++i) len += encode_utf8(cps[i], bytes + len);
    return XXH3_64bits(bytes, len);
}

}  // namespace

FeatureStream::FeatureStream(const FeatureOptions &options) : options_(options)
{
    if (options_.size < 1 || options_.size > kMaxShingleSize)  // the hash buffers' bound
        throw InvalidArgument("shingle size must be between 1 and " + std::to_string(kMaxShingleSize) +
                              ", got " + std::to_string(options_.size));
    if (options_.unit == FeatureOptions::Unit::word)
        token_ring_.assign(2 * std::size_t(options_.size), 0);
    else
        char_ring_.assign(2 * std::size_t(options_.size), 0);
    ring_pos_ = std::size_t(options_.size) - 1;  // the first entry goes to 0
}

void FeatureStream::character(uint32_t cp, std::vector<uint64_t> &features)
{
    const std::size_t w = std::size_t(options_.size);
    ring_pos_ = ring_pos_ + 1 == w ? 0 : ring_pos_ + 1;
    char_ring_[ring_pos_] = char_ring_[ring_pos_ + w] = cp;
    ++tokens_;
    if (tokens_ >= w) features.push_back(hash_code_points(&char_ring_[ring_pos_ + 1], w));
}

void FeatureStream::word(uint64_t token_hash, std::vector<uint64_t> &features)
{
    const std::size_t w = std::size_t(options_.size);
    ring_pos_ = ring_pos_ + 1 == w ? 0 : ring_pos_ + 1;
    token_ring_[ring_pos_] = token_ring_[ring_pos_ + w] = token_hash;
    ++tokens_;
    if (tokens_ >= w) features.push_back(hash_le64_words(&token_ring_[ring_pos_ + 1], w));
}

void FeatureStream::end_token(std::vector<uint64_t> &features)
{
    if (token_.empty()) return;
    if (options_.unit == FeatureOptions::Unit::word)
        word(XXH3_64bits(token_.data(), token_.size()), features);
    else
        space_due_ = true;
    token_.clear();
}

void FeatureStream::code_point(uint32_t cp, std::vector<uint64_t> &features)
{
    if (!is_word_character(cp)) {
        end_token(features);
        return;
    }
    if (options_.fold_case) cp = uint32_t(utf8proc_tolower(utf8proc_int32_t(cp)));
    const bool alone = is_unsegmented_script(cp);
    if (alone) end_token(features);
    if (options_.unit == FeatureOptions::Unit::character) {
        if (space_due_) {
            character(' ', features);
            space_due_ = false;
        }
        character(cp, features);
    }
    append_utf8(cp, token_);
    if (alone) end_token(features);
}

void FeatureStream::ascii_word_run(const unsigned char *p, std::size_t n)
{
    const unsigned char *table = options_.fold_case ? kAscii.fold : kAscii.keep;
    const std::size_t old = token_.size();
    token_.resize(old + n);
    char *out = &token_[old];
    for (std::size_t k = 0; k < n; ++k) out[k] = char(table[p[k]]);
}

void FeatureStream::feed(const char *data, std::size_t len, std::vector<uint64_t> &features)
{
    const auto *p = reinterpret_cast<const unsigned char *>(data);
    std::size_t i = 0;
    // Complete a sequence split by the previous piece. Whatever the split, the outcome is the
    // same as for the whole text: an invalid sequence is one separator and its other bytes are
    // read again on their own.
    while (npending_ > 0 && i < len) {
        if (!is_continuation(p[i])) {
            npending_ = 0;
            end_token(features);
            break;
        }
        pending_[npending_++] = p[i++];
        if (npending_ < sequence_length(pending_[0])) continue;
        utf8proc_int32_t cp;
        const auto n = utf8proc_iterate(pending_, utf8proc_ssize_t(npending_), &cp);
        npending_ = 0;
        if (n > 0) code_point(uint32_t(cp), features);
        else end_token(features);
    }
    while (i < len) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            if (!kAscii.keep[c]) {
                end_token(features);
                ++i;
            } else if (options_.unit == FeatureOptions::Unit::word) {
                std::size_t j = i + 1;
                while (j < len && p[j] < 0x80 && kAscii.keep[p[j]]) ++j;
                if (token_.empty() && j < len && p[j] < 0x80 && j - i <= kShortToken) {
                    // The whole token, ended by ASCII punctuation or space: hash it from the stack.
                    const unsigned char *table = options_.fold_case ? kAscii.fold : kAscii.keep;
                    char folded[kShortToken];
                    for (std::size_t k = i; k < j; ++k) folded[k - i] = char(table[p[k]]);
                    word(XXH3_64bits(folded, j - i), features);
                } else {
                    ascii_word_run(p + i, j - i);
                }
                i = j;
            } else {
                const unsigned char folded = options_.fold_case ? kAscii.fold[c] : c;
                if (space_due_) {
                    character(' ', features);
                    space_due_ = false;
                }
                character(folded, features);
                token_.push_back(char(folded));
                ++i;
            }
            continue;
        }
        const std::size_t need = sequence_length(c);
        if (need == 0) {  // stray continuation or invalid byte: a separator
            end_token(features);
            ++i;
            continue;
        }
        if (i + need > len) {  // the sequence may continue in the next piece
            std::size_t j = i + 1;
            while (j < len && is_continuation(p[j])) ++j;
            if (j == len) {
                npending_ = 0;
                while (i < len) pending_[npending_++] = p[i++];
                break;
            }
            end_token(features);  // cut short inside this piece: invalid
            ++i;
            continue;
        }
        utf8proc_int32_t cp;
        const auto n = utf8proc_iterate(p + i, utf8proc_ssize_t(need), &cp);
        if (n <= 0) {
            end_token(features);
            ++i;
            continue;
        }
        code_point(uint32_t(cp), features);
        i += std::size_t(n);
    }
}

void FeatureStream::finish(std::vector<uint64_t> &features)
{
    if (npending_ > 0) {  // a truncated sequence at the very end
        npending_ = 0;
        end_token(features);
    }
    end_token(features);
    // Fewer tokens (code points) than the shingle size: one shingle of all of them, which never
    // wrapped around the ring.
    const std::size_t w = std::size_t(options_.size);
    if (tokens_ == 0 || tokens_ >= w) return;
    if (options_.unit == FeatureOptions::Unit::word)
        features.push_back(hash_le64_words(token_ring_.data(), tokens_));
    else
        features.push_back(hash_code_points(char_ring_.data(), tokens_));
}

}  // namespace simhash
