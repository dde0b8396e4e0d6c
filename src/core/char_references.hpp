// Character references in HTML text, decoded as browsers decode them (the HTML standard's
// tokenizer, character reference states): numeric references with or without the final ';',
// the 106 legacy named references (&amp, &lt, &copy, &eacute, ...) also without it and as the
// longest prefix of a longer name (&copy2024 is "©2024"), other names only with ';'.
#pragma once

#include <string>
#include <string_view>

namespace simhash {

// body: what follows '&', up to (not including) the first character that is neither an ASCII
// letter or digit nor '#'; semicolon: whether that character is ';'. Appends the decoded text to
// out (the literal text where nothing is decoded) and returns whether the ';' was part of the
// reference; if not, the caller still has it to read as text.
bool decode_reference(std::string_view body, bool semicolon, std::string &out);

}  // namespace simhash
