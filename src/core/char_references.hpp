// Character references in HTML text, decoded as browsers decode them (the HTML standard's
// tokenizer, character reference states): numeric references with or without the final ';'; the
// standard's 2,231 named references (&notin; is "∉", &NotEqualTilde; two code points), the longest
// name that matches winning; only the 106 legacy names (&amp, &lt, &copy, &eacute, ...) also without
// their ';', so also as the start of a longer word (&copy2024 is "©2024", &notit; is "¬it;").
// Attribute values are never decoded (html_text drops them), so the standard's exception for
// legacy names there does not arise.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace simhash {

// The most characters a caller needs to keep after '&' (the longest name has 31): a longer run
// can only be decoded as a legacy name at its start, which the first 32 show.
constexpr std::size_t kLongestReferenceBody = 32;

// body: what follows '&', up to (not including) the first character that is neither an ASCII
// letter or digit nor '#'; semicolon: whether that character is ';'. Appends the decoded text to
// out (the literal text where nothing is decoded) and returns whether the ';' was part of the
// reference; if not, the caller still has it to read as text.
bool decode_reference(std::string_view body, bool semicolon, std::string &out);

}  // namespace simhash
