#include "html_text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "char_references.hpp"
#include "utf8_encode.hpp"

namespace simhash {
namespace {

// Tags whose start or end separates words (sorted: looked up by binary search): block elements, and
// the form controls and embedded content that a browser draws as boxes of their own (javadoc's tab
// buttons sit side by side: "Deprecated Elements</button><button>Deprecated in 17" is two phrases).
constexpr std::string_view kBlockTags[] = {
    "address", "article", "aside", "blockquote", "body", "br", "button", "caption", "dd", "details",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
    "h5", "h6", "head", "header", "hr", "html", "iframe", "img", "input", "li", "main", "nav", "ol",
    "option", "p", "pre", "section", "select", "summary", "table", "tbody", "td", "textarea",
    "tfoot", "th", "thead", "title", "tr", "ul"};

// Elements whose content is not visible text.
constexpr std::string_view kRawTags[] = {"noscript", "script", "style", "svg", "template"};

template <std::size_t N>
constexpr bool is_sorted(const std::string_view (&list)[N])
{
    for (std::size_t i = 1; i < N; ++i)
        if (!(list[i - 1] < list[i])) return false;
    return true;
}
static_assert(is_sorted(kBlockTags) && is_sorted(kRawTags), "tag lists must stay sorted");

template <std::size_t N>
bool is_one_of(std::string_view name, const std::string_view (&sorted)[N])
{
    return std::binary_search(sorted, sorted + N, name);
}

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_alpha(c) || (c >= '0' && c <= '9'); }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

// The index before the next c after i (or before len), for a loop that goes on with ++i.
std::size_t skip_to(const char *data, std::size_t i, std::size_t len, char c)
{
    const void *next = std::memchr(data + i + 1, c, len - i - 1);
    return next ? std::size_t(static_cast<const char *>(next) - data) - 1 : len - 1;
}

}  // namespace

void HtmlText::end_tag_name()
{
    const bool end_tag = !tag_.empty() && tag_[0] == '/';
    const std::string_view name = std::string_view(tag_).substr(end_tag ? 1 : 0);
    tag_is_block_ = is_one_of(name, kBlockTags);
    raw_end_.clear();
    if (!end_tag && is_one_of(name, kRawTags)) {
        raw_end_ = "</";
        raw_end_ += name;
    }
    state_ = State::in_tag;
}

void HtmlText::flush_entity(bool semicolon, std::string &out)
{
    const bool consumed = decode_reference(entity_, semicolon, out);
    entity_.clear();
    if (semicolon && !consumed) out.push_back(';');
}

void HtmlText::feed(const char *data, std::size_t len, std::string &out)
{
    for (std::size_t i = 0; i < len; ++i) {
        const char c = data[i];
        switch (state_) {
        case State::text:
            if (c == '<')
                state_ = State::tag_open;
            else if (c == '&') {
                entity_.clear();
                state_ = State::entity;
            } else {  // copy the run of plain text up to the next markup character at once
                std::size_t j = i + 1;
                while (j < len && data[j] != '<' && data[j] != '&') ++j;
                out.append(data + i, j - i);
                i = j - 1;
            }
            break;

        case State::entity:
            if (c == ';') {
                flush_entity(true, out);
                state_ = State::text;
            } else if ((is_alnum(c) || c == '#') && entity_.size() < kLongestReferenceBody) {
                entity_.push_back(c);
            } else {
                flush_entity(false, out);
                state_ = State::text;
                --i;  // read c again as text
            }
            break;

        case State::tag_open:
            if (is_alpha(c)) {
                tag_.assign(1, lower(c));
                state_ = State::tag_name;
            } else if (c == '/') {
                tag_ = "/";
                state_ = State::tag_name;
            } else if (c == '!' || c == '?') {
                tag_.assign(1, c);
                state_ = State::declaration;
            } else {  // a lone '<' is text
                out.push_back('<');
                state_ = State::text;
                --i;
            }
            break;

        case State::tag_name:
            if (is_alnum(c) || c == '-' || c == ':')
                tag_.push_back(lower(c));
            else {
                end_tag_name();
                --i;  // the attribute scanner sees the delimiter
            }
            break;

        case State::in_tag:
            if (quote_) {
                if (c == quote_)
                    quote_ = 0;
                else  // skip to the closing quote
                    i = skip_to(data, i, len, quote_);
            } else if (c == '"' || c == '\'') {
                quote_ = c;
            } else if (c == '>') {
                if (tag_is_block_) out.push_back('\n');
                const bool self_closing = (i > 0 ? data[i - 1] : last_) == '/';
                if (!raw_end_.empty() && !self_closing) {
                    raw_matched_ = 0;
                    state_ = State::raw_text;
                } else
                    state_ = State::text;
            }
            break;

        case State::raw_text:
            if (raw_matched_ == 0 && c != '<') {  // nothing can match before the next '<'
                i = skip_to(data, i, len, '<');
            } else if (lower(c) == raw_end_[raw_matched_]) {
                if (++raw_matched_ == raw_end_.size()) {
                    tag_ = "/" + raw_end_.substr(2);
                    raw_end_.clear();
                    tag_is_block_ = false;
                    state_ = State::in_tag;
                }
            } else
                raw_matched_ = (c == '<') ? 1 : 0;
            break;

        case State::declaration:
            if (c == '-' && tag_.size() == 1 && tag_[0] == '!')
                tag_ = "!-";
            else if (c == '-' && tag_.size() == 2 && tag_[0] == '!' && tag_[1] == '-') {
                comment_dashes_ = 0;
                state_ = State::comment;
            } else if (c == '>')
                state_ = State::text;
            else
                tag_ = "!?";
            break;

        case State::comment:
            if (comment_dashes_ == 0 && c != '-')  // nothing can end it before the next '-'
                i = skip_to(data, i, len, '-');
            else if (c == '-')
                ++comment_dashes_;
            else if (c == '>' && comment_dashes_ >= 2)
                state_ = State::text;
            else
                comment_dashes_ = 0;
            break;
        }
    }
    if (len > 0) last_ = data[len - 1];
}

void HtmlText::finish(std::string &out)
{
    if (state_ == State::entity) flush_entity(false, out);
    if (state_ == State::tag_open) out.push_back('<');
    state_ = State::text;
}

}  // namespace simhash
