#include "char_references.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "utf8_encode.hpp"

namespace simhash {
namespace {

struct NamedReference {
    std::string_view name;  // without its ';'
    uint32_t first;         // the code point it stands for
    uint32_t second;        // a second one (93 names stand for two, e.g. NotEqualTilde), or 0
    bool legacy;            // also a reference without its ';' (amp, copy, eacute, ...)
};

// HTML's full table, built from Python's copy of it by the Makefile (scripts/char_reference_table.py).
#include "char_reference_table.inc"

constexpr bool names_sorted()
{
    for (std::size_t i = 1; i < std::size(kNamedReferences); ++i)
        if (!(kNamedReferences[i - 1].name < kNamedReferences[i].name)) return false;
    return true;
}
static_assert(names_sorted(), "the named reference table must be sorted by name");
static_assert(kLongestName <= kLongestReferenceBody, "a body must be able to hold every name");

const NamedReference *find_name(std::string_view name)
{
    const auto *end = std::end(kNamedReferences);
    const auto *it = std::lower_bound(std::begin(kNamedReferences), end, name,
                                      [](const NamedReference &r, std::string_view n) { return r.name < n; });
    return (it != end && it->name == name) ? it : nullptr;
}

void append_reference(const NamedReference &r, std::string &out)
{
    append_utf8(r.first, out);
    if (r.second != 0) append_utf8(r.second, out);
}

// What C1 controls in numeric references stand for (windows-1252, as browsers read them); 0 where
// the code point stays as it is.
constexpr uint16_t kC1[32] = {0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                              0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
                              0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                              0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

int digit_value(char c, bool hex)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (hex && c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (hex && c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

uint32_t numeric_codepoint(uint64_t v)
{
    if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0xFFFD;
    if (v >= 0x80 && v <= 0x9F && kC1[v - 0x80] != 0) return kC1[v - 0x80];
    return uint32_t(v);
}

}  // namespace

bool decode_reference(std::string_view body, bool semicolon, std::string &out)
{
    if (!body.empty() && body[0] == '#') {
        const bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
        const std::size_t start = hex ? 2 : 1;
        std::size_t end = start;
        uint64_t v = 0;
        for (; end < body.size() && digit_value(body[end], hex) >= 0; ++end)
            v = std::min<uint64_t>(v * (hex ? 16 : 10) + uint64_t(digit_value(body[end], hex)), 0x110000);
        if (end == start) {  // "&#" or "&#x" without digits: not a reference
            out.push_back('&');
            out.append(body);
            return false;
        }
        append_utf8(numeric_codepoint(v), out);
        out.append(body.substr(end));  // a reference ends at its last digit
        return semicolon && end == body.size();
    }
    // The tokenizer takes the longest name in the table that the text starts with. Only a legacy name
    // may match without its ';', and the body ends at the first character no name contains, so that
    // is the whole body with its ';' if it is a name, or else the longest legacy name the body
    // starts with (&notin; is one name, &notit; is &not followed by "it;").
    if (semicolon)
        if (const NamedReference *r = find_name(body)) {
            append_reference(*r, out);
            return true;
        }
    for (std::size_t len = std::min(body.size(), kLongestLegacyName); len > 0; --len) {
        const NamedReference *r = find_name(body.substr(0, len));
        if (r && r->legacy) {
            append_reference(*r, out);
            out.append(body.substr(len));
            return false;
        }
    }
    out.push_back('&');
    out.append(body);
    return false;
}

}  // namespace simhash
