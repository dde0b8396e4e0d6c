// Visible text of an HTML document, streamed: tags removed, script/style/noscript/template/svg
// content and comments dropped, character references decoded, block-level elements separate words.
// Never fails: malformed markup degrades to the best reading of it (an unterminated tag or comment
// swallows the rest, as a browser would).
#pragma once

#include <cstddef>
#include <string>

namespace simhash {

class HtmlText {
public:
    // Appends the visible text of the next piece of the document to out.
    void feed(const char *data, std::size_t len, std::string &out);
    // Flushes what a truncated document left pending (a dangling '&...').
    void finish(std::string &out);

private:
    enum class State { text, tag_open, tag_name, in_tag, comment, declaration, raw_text, entity };
    void end_tag_name();
    // Decodes the pending reference; semicolon: a ';' ended it (written as text if not part of it).
    void flush_entity(bool semicolon, std::string &out);

    State state_ = State::text;
    std::string tag_;           // lower-cased name of the tag being read ("/p" for an end tag)
    std::string raw_end_;       // in raw text: the end tag that closes it, e.g. "</script"
    std::size_t raw_matched_ = 0;
    std::string entity_;        // characters after '&'
    char quote_ = 0;            // inside a quoted attribute value
    int comment_dashes_ = 0;    // consecutive '-' seen in a comment
    bool tag_is_block_ = false;
    char last_ = 0;             // the last byte of the previous piece (a '/' before '>' self-closes)
};

}  // namespace simhash
