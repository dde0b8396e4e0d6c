#include "text_features.hpp"

#include <utf8proc.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

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

bool is_ascii_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Length of the UTF-8 sequence a lead byte starts (0: not a lead byte).
std::size_t sequence_length(unsigned char c)
{
    if (c >= 0xC2 && c <= 0xDF) return 2;
    if (c >= 0xE0 && c <= 0xEF) return 3;
    if (c >= 0xF0 && c <= 0xF4) return 4;
    return 0;
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

void put_le64(uint64_t v, unsigned char *out)
{
    for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}

}  // namespace

FeatureStream::FeatureStream(const FeatureOptions &options) : options_(options)
{
    if (options_.unit == FeatureOptions::Unit::word)
        token_ring_.assign(std::size_t(options_.size), 0);
    else
        char_ring_.assign(std::size_t(options_.size), 0);
}

void FeatureStream::word_feature(std::size_t count, std::vector<uint64_t> &features)
{
    const std::size_t w = token_ring_.size();
    std::vector<unsigned char> bytes(8 * count);
    for (std::size_t i = 0; i < count; ++i)  // oldest first
        put_le64(token_ring_[(tokens_ - count + i) % w], &bytes[8 * i]);
    features.push_back(XXH3_64bits(bytes.data(), bytes.size()));
}

void FeatureStream::character_feature(std::size_t count, std::vector<uint64_t> &features)
{
    const std::size_t w = char_ring_.size();
    std::string bytes;
    for (std::size_t i = 0; i < count; ++i) append_utf8(char_ring_[(tokens_ - count + i) % w], bytes);
    features.push_back(XXH3_64bits(bytes.data(), bytes.size()));
}

void FeatureStream::character(uint32_t cp, std::vector<uint64_t> &features)
{
    const std::size_t w = char_ring_.size();
    char_ring_[tokens_ % w] = cp;
    ++tokens_;
    if (tokens_ >= w) character_feature(w, features);
}

void FeatureStream::end_token(std::vector<uint64_t> &features)
{
    if (token_.empty()) return;
    if (options_.unit == FeatureOptions::Unit::word) {
        const std::size_t w = token_ring_.size();
        token_ring_[tokens_ % w] = XXH3_64bits(token_.data(), token_.size());
        ++tokens_;
        if (tokens_ >= w) word_feature(w, features);
    } else {
        space_due_ = true;
    }
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
            if (is_ascii_word(c)) {
                const char folded = (options_.fold_case && c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : char(c);
                if (options_.unit == FeatureOptions::Unit::character) {
                    if (space_due_) {
                        character(' ', features);
                        space_due_ = false;
                    }
                    character(uint32_t(static_cast<unsigned char>(folded)), features);
                }
                token_.push_back(folded);
            } else {
                end_token(features);
            }
            ++i;
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
    if (options_.unit == FeatureOptions::Unit::word) {
        if (tokens_ > 0 && tokens_ < token_ring_.size()) word_feature(tokens_, features);
    } else if (tokens_ > 0 && tokens_ < char_ring_.size()) {
        character_feature(tokens_, features);
    }
}

}  // namespace simhash
