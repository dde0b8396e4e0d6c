#include "char_references.hpp"

#include <algorithm>
#include <cstdint>

#include "utf8_encode.hpp"

namespace simhash {
namespace {

// Latin-1's named characters, U+00A0..U+00FF in order: every one is a legacy name.
constexpr std::string_view kLatin1Names[96] = {
    "nbsp",   "iexcl",  "cent",   "pound",  "curren", "yen",    "brvbar", "sect",   "uml",    "copy",
    "ordf",   "laquo",  "not",    "shy",    "reg",    "macr",   "deg",    "plusmn", "sup2",   "sup3",
    "acute",  "micro",  "para",   "middot", "cedil",  "sup1",   "ordm",   "raquo",  "frac14", "frac12",
    "frac34", "iquest", "Agrave", "Aacute", "Acirc",  "Atilde", "Auml",   "Aring",  "AElig",  "Ccedil",
    "Egrave", "Eacute", "Ecirc",  "Euml",   "Igrave", "Iacute", "Icirc",  "Iuml",   "ETH",    "Ntilde",
    "Ograve", "Oacute", "Ocirc",  "Otilde", "Ouml",   "times",  "Oslash", "Ugrave", "Uacute", "Ucirc",
    "Uuml",   "Yacute", "THORN",  "szlig",  "agrave", "aacute", "acirc",  "atilde", "auml",   "aring",
    "aelig",  "ccedil", "egrave", "eacute", "ecirc",  "euml",   "igrave", "iacute", "icirc",  "iuml",
    "eth",    "ntilde", "ograve", "oacute", "ocirc",  "otilde", "ouml",   "divide", "oslash", "ugrave",
    "uacute", "ucirc",  "uuml",   "yacute", "thorn",  "yuml"};

struct Named {
    std::string_view name;
    uint32_t codepoint;
};

// The other ten legacy names.
constexpr Named kLegacyOthers[] = {{"AMP", 0x26},  {"COPY", 0xA9}, {"GT", 0x3E}, {"LT", 0x3C},
                                   {"QUOT", 0x22}, {"REG", 0xAE},  {"amp", 0x26}, {"gt", 0x3E},
                                   {"lt", 0x3C},   {"quot", 0x22}};

// Names crawled pages use that need their ';' (HTML's full table has 2,231; an unknown name stays
// literal text).
constexpr Named kWithSemicolon[] = {
    {"apos", 0x27},    {"bull", 0x2022},   {"dagger", 0x2020}, {"euro", 0x20AC},  {"hellip", 0x2026},
    {"larr", 0x2190},  {"ldquo", 0x201C},  {"lsaquo", 0x2039}, {"lsquo", 0x2018}, {"mdash", 0x2014},
    {"ndash", 0x2013}, {"rarr", 0x2192},   {"rdquo", 0x201D},  {"rsaquo", 0x203A}, {"rsquo", 0x2019},
    {"trade", 0x2122}};

// What C1 controls in numeric references stand for (windows-1252, as browsers read them); 0 where
// the code point stays as it is.
constexpr uint16_t kC1[32] = {0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                              0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
                              0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                              0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

bool legacy(std::string_view name, uint32_t &cp)
{
    const auto *latin1 = std::find(std::begin(kLatin1Names), std::end(kLatin1Names), name);
    if (latin1 != std::end(kLatin1Names)) {
        cp = 0xA0 + uint32_t(latin1 - std::begin(kLatin1Names));
        return true;
    }
    for (const auto &n : kLegacyOthers)
        if (n.name == name) {
            cp = n.codepoint;
            return true;
        }
    return false;
}

bool named(std::string_view name, uint32_t &cp)
{
    if (legacy(name, cp)) return true;
    for (const auto &n : kWithSemicolon)
        if (n.name == name) {
            cp = n.codepoint;
            return true;
        }
    return false;
}

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

constexpr std::size_t kLongestLegacy = 6;  // "frac12", "middot", ...

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
    uint32_t cp;
    if (semicolon && named(body, cp)) {
        append_utf8(cp, out);
        return true;
    }
    for (std::size_t len = std::min(body.size(), kLongestLegacy); len >= 2; --len)
        if (legacy(body.substr(0, len), cp)) {
            append_utf8(cp, out);
            out.append(body.substr(len));
            return false;
        }
    out.push_back('&');
    out.append(body);
    return false;
}

}  // namespace simhash
