#include <gtest/gtest.h>

#include <string>

#include "html_text.hpp"

using simhash::HtmlText;

namespace {

std::string text_of(const std::string &html)
{
    HtmlText h;
    std::string out;
    h.feed(html.data(), html.size(), out);
    h.finish(out);
    return out;
}

// The same document fed one byte at a time: a reference split across pieces decodes the same.
std::string text_bytewise(const std::string &html)
{
    HtmlText h;
    std::string out;
    for (char c : html) h.feed(&c, 1, out);
    h.finish(out);
    return out;
}

}  // namespace

TEST(CharReferences, NumericWithOrWithoutSemicolon)
{
    EXPECT_EQ(text_of("&#65;&#66 &#x43;&#x44 &#X45"), "AB CD E");
    EXPECT_EQ(text_of("&#65x &#x41g;"), "Ax Ag;");            // a reference ends at its last digit
    EXPECT_EQ(text_of("&# &#x; &#;"), "&# &#x; &#;");          // no digits: not a reference
    EXPECT_EQ(text_of("&#0; &#xD800; &#x110000; &#99999999999999999999"),
              "\xEF\xBF\xBD \xEF\xBF\xBD \xEF\xBF\xBD \xEF\xBF\xBD");
    EXPECT_EQ(text_of("&#150;&#x80;&#129;"), "\xE2\x80\x93\xE2\x82\xAC\xC2\x81");  // C1 as windows-1252
}

TEST(CharReferences, LegacyNamesWithoutSemicolon)
{
    EXPECT_EQ(text_of("a &amp b &lt c &gt d &quot e"), "a & b < c > d \" e");
    EXPECT_EQ(text_of("&copy 2024 &AMP &COPY &eacute"), "\xC2\xA9 2024 & \xC2\xA9 \xC3\xA9");
    EXPECT_EQ(text_of("&copy2024 &notit; &ampx;"), "\xC2\xA9" "2024 \xC2\xACit; &x;");  // longest legacy prefix
    EXPECT_EQ(text_of("&frac12 &frac1 &yuml"), "\xC2\xBD &frac1 \xC3\xBF");  // no prefix of "frac1" is a name
}

TEST(CharReferences, OtherNamesNeedTheirSemicolon)
{
    EXPECT_EQ(text_of("&mdash; &mdash &hellip &euro;"), "\xE2\x80\x94 &mdash &hellip \xE2\x82\xAC");
    EXPECT_EQ(text_of("&nosuch; &nosuch & x &;"), "&nosuch; &nosuch & x &;");
    EXPECT_EQ(text_of("AT&T R&D"), "AT&T R&D");
}

TEST(CharReferences, EveryNameInTheStandardsTable)
{
    // What a browser shows; a table of the legacy names alone decoded these as "¬in; ×b; ©sr; <dot;".
    EXPECT_EQ(text_of("&notin; &timesb; &copysr; &ltdot;"), "\u2209 \u22A0 \u2117 \u22D6");
    EXPECT_EQ(text_of("&CounterClockwiseContourIntegral; &Afr; &zwnj;"), "\u2233 \U0001D504 \u200C");
    EXPECT_EQ(text_of("&notinva; &notinvc;"), "\u2209 \u22F6");  // the longest name wins
}

TEST(CharReferences, NamesThatStandForTwoCodePoints)
{
    EXPECT_EQ(text_of("&NotEqualTilde;"), "\u2242\u0338");
    EXPECT_EQ(text_of("&fjlig;&nvlt;&bne;"), "fj<\u20D2=\u20E5");
    EXPECT_EQ(text_bytewise("a&ThickSpace;b"), "a\u205F\u200Ab");
}

TEST(CharReferences, OnlyLegacyNamesMatchWithoutTheirSemicolon)
{
    // &notin without ';' is the legacy &not followed by "in": the longest name that may match.
    EXPECT_EQ(text_of("&notin &timesb &amp &ampersand; &ltdot"), "\u00ACin \u00D7b & &ersand; <dot");
    EXPECT_EQ(text_of("&NotEqualTilde &copysr"), "&NotEqualTilde \u00A9sr");
}

TEST(CharReferences, UnknownAndOverlongNamesStayText)
{
    EXPECT_EQ(text_of("&NOTIN; &Notin; &notinx; &xyz;"), "&NOTIN; &Notin; \u00ACinx; &xyz;");
    const std::string long_name(40, 'q');
    EXPECT_EQ(text_of("&" + long_name + "; &amp" + long_name + ";"), "&" + long_name + "; &" + long_name + ";");
    // A body longer than any name is cut where the decoder stops reading it: still only text.
    EXPECT_EQ(text_bytewise("&CounterClockwiseContourIntegralXY;"), "&CounterClockwiseContourIntegralXY;");
}

TEST(CharReferences, SplitAcrossPiecesAndAtTheEnd)
{
    for (const std::string doc : {"x &#65 y &amp z &copy2024 &mdash; &#x41", "tail &amp", "tail &#6", "&not", "&notin;&NotEqualTilde;"}) {
        EXPECT_EQ(text_bytewise(doc), text_of(doc)) << doc;
    }
    EXPECT_EQ(text_of("tail &amp"), "tail &");
    EXPECT_EQ(text_of("tail &#66"), "tail B");
}
