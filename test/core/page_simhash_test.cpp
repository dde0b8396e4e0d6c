#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "allocation_probe.hpp"
#include "core_errors.hpp"
#include "charikar.h"
#include "hamming.h"
#include "html_text.hpp"
#include "minhash_sketch.hpp"
#include "page_min_hashes.hpp"
#include "page_simhash.hpp"
#include "splitmix64.h"
#include "text_features.hpp"

using namespace simhash;

namespace {

std::vector<uint64_t> features(const std::string &text, FeatureOptions o = {}, std::size_t piece = 0)
{
    FeatureStream s(o);
    std::vector<uint64_t> out;
    if (piece == 0) piece = text.size() + 1;
    for (std::size_t i = 0; i < text.size(); i += piece)
        s.feed(text.data() + i, std::min(piece, text.size() - i), out);
    s.finish(out);
    return out;
}

uint64_t token_hash(const std::string &t) { return XXH3_64bits(t.data(), t.size()); }

uint64_t shingle(std::vector<std::string> tokens)
{
    std::string bytes;
    for (const auto &t : tokens) {
        uint64_t h = token_hash(t);
        for (int i = 0; i < 8; ++i) bytes.push_back(char(h >> (8 * i)));
    }
    return XXH3_64bits(bytes.data(), bytes.size());
}

std::string visible(const std::string &html, std::size_t piece = 0)
{
    HtmlText h;
    std::string out;
    if (piece == 0) piece = html.size() + 1;
    for (std::size_t i = 0; i < html.size(); i += piece) h.feed(html.data() + i, std::min(piece, html.size() - i), out);
    h.finish(out);
    return out;
}

uint64_t page(const std::string &text, PageOptions o = {})
{
    PageSimhash p(o);
    p.feed(text.data(), text.size());
    return p.result();
}

}  // namespace

TEST(Features, WordShinglesFollowTheDocumentedEncoding)
{
    auto f = features("Hello, World! foo_bar 42");
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0], shingle({"hello", "world", "foo_bar"}));
    EXPECT_EQ(f[1], shingle({"world", "foo_bar", "42"}));
    // Fewer tokens than the shingle size: one shingle of all of them; nothing: no feature.
    EXPECT_EQ(features("just two"), std::vector<uint64_t>{shingle({"just", "two"})});
    EXPECT_TRUE(features("  ... !!! ").empty());
    FeatureOptions unfolded;
    unfolded.fold_case = false;
    EXPECT_EQ(features("A b c", unfolded)[0], shingle({"A", "b", "c"}));
}

TEST(Features, CharacterShinglesJoinTokensWithOneSpace)
{
    FeatureOptions o;
    o.unit = FeatureOptions::Unit::character;
    o.size = 4;
    auto f = features("ab,  CD", o);  // normalized: "ab cd"
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0], XXH3_64bits("ab c", 4));
    EXPECT_EQ(f[1], XXH3_64bits("b cd", 4));
}

TEST(Features, UnicodeWordsAndFolding)
{
    FeatureOptions one;
    one.size = 1;
    // Accented Latin and Cyrillic fold without a locale; combining marks stay in their word.
    EXPECT_EQ(features("ÉCOLE École", one)[0], features("école", one)[0]);
    EXPECT_EQ(features("ПРИВЕТ", one)[0], shingle({"привет"}));
    EXPECT_EQ(features("e\xCC\x81t\xC3\xA9", one), std::vector<uint64_t>{shingle({"e\xCC\x81t\xC3\xA9"})});
    // CJK without spaces: one token per ideograph; emoji are not word characters.
    EXPECT_EQ(features("日本語", one).size(), 3u);
    EXPECT_EQ(features("ok 😀 ok", one).size(), 2u);
}

TEST(Features, SameFeaturesHoweverTheInputIsSplit)
{
    const std::string text = "Straße \xFF\xFE broken \xE2\x82 seq 日本語テキスト and MORE_words 123 \xF0\x9F\x98\x80 end";
    for (auto unit : {FeatureOptions::Unit::word, FeatureOptions::Unit::character}) {
        FeatureOptions o;
        o.unit = unit;
        const auto whole = features(text, o);
        ASSERT_FALSE(whole.empty());
        for (std::size_t piece = 1; piece <= 7; ++piece) EXPECT_EQ(features(text, o, piece), whole) << piece;
    }
}

TEST(HtmlText, DropsInvisibleContentAndDecodesReferences)
{
    EXPECT_EQ(visible("<p>Fish &amp; chips</p>"), "\nFish & chips\n");
    EXPECT_EQ(visible("a<b>b</b>c"), "abc");  // inline tags do not split words
    EXPECT_EQ(visible("<button>All</button><button>New</button>"), "\nAll\n\nNew\n");
    EXPECT_EQ(visible("Search<input type=text>now, see<img src=x>below"), "Search\nnow, see\nbelow");
    EXPECT_EQ(visible("x<script>if (a<b) {}</script>y"), "xy");
    EXPECT_EQ(visible("x<STYLE type='a>b'>p{}</Style >y"), "xy");
    EXPECT_EQ(visible("x<!-- <p>hidden</p> -->y<!DOCTYPE html>z"), "xyz");
    EXPECT_EQ(visible("&#233;&#xE9;&eacute;&nosuch;&#0;"), "ééé&nosuch;\xEF\xBF\xBD");
    EXPECT_EQ(visible("a <a href=\"x>y\">link</a> b"), "a link b");
    EXPECT_EQ(visible("1 < 2 & 3"), "1 < 2 & 3");
}

TEST(HtmlText, MalformedMarkupNeverFailsAndSplitsDoNotMatter)
{
    const std::string html = "<html><head><title>T</title><script>var s='</scr'+'ipt>';</script></head>"
                             "<body><div>Hello &amp world &#x41;<br/>next<p>unclosed <b>bold <!-- c -- > d --> "
                             "<svg><text>no</text></svg>&copy 2024 <a href='x";
    const std::string whole = visible(html);
    for (std::size_t piece = 1; piece <= 9; ++piece) EXPECT_EQ(visible(html, piece), whole) << piece;
    EXPECT_NE(whole.find("Hello & world A"), std::string::npos);  // a legacy name needs no ';'
    EXPECT_NE(whole.find("\xC2\xA9 2024"), std::string::npos);
    EXPECT_EQ(whole.find("no"), std::string::npos);
    EXPECT_EQ(visible("<"), "<");
    EXPECT_EQ(visible("&amp"), "&");
}

TEST(PageSimhash, CharikarConventionAndWeighting)
{
    PageOptions ch;
    ch.method = Method::charikar;
    EXPECT_EQ(page("", ch), 0u);
    // One feature: the simhash is that feature's hash.
    EXPECT_EQ(page("alpha beta gamma", ch), shingle({"alpha", "beta", "gamma"}));
    // Two features: ties (bits where they differ) give 0, so the result is their AND.
    const uint64_t a = shingle({"a", "b", "c"}), b = shingle({"b", "c", "d"});
    EXPECT_EQ(page("a b c d", ch), a & b);
    // "a b c a b c" has the shingles abc (twice), bca and cab.
    const uint64_t bca = shingle({"b", "c", "a"}), cab = shingle({"c", "a", "b"});
    auto combine = [](std::vector<std::pair<uint64_t, double>> fw) {
        sh_charikar acc;
        sh_charikar_init(&acc);
        for (auto [f, w] : fw) sh_charikar_add(&acc, f, w);
        return sh_charikar_result(&acc);
    };
    PageOptions freq = ch, logw = ch;
    freq.weighting = Weighting::frequency;
    logw.weighting = Weighting::log;
    EXPECT_EQ(page("a b c a b c", ch), combine({{a, 1}, {bca, 1}, {cab, 1}}));
    EXPECT_EQ(page("a b c a b c", freq), combine({{a, 2}, {bca, 1}, {cab, 1}}));
    EXPECT_EQ(page("a b c a b c", logw), combine({{a, 1 + std::log(2.0)}, {bca, 1}, {cab, 1}}));
    sh_charikar acc;
    sh_charikar_init(&acc);
    sh_charikar_add(&acc, 0xF0, 2.0);
    sh_charikar_add(&acc, 0x0F, 1.0);
    EXPECT_EQ(sh_charikar_result(&acc), 0xF0u);
}

TEST(PageSimhash, DefaultIsTheMinHashSketchOfTheFeatureSet)
{
    EXPECT_EQ(page(""), 0u);
    // "a b c a b c" has the shingles abc (twice), bca and cab: the sketch sees each once.
    const uint64_t set[] = {shingle({"a", "b", "c"}), shingle({"b", "c", "a"}), shingle({"c", "a", "b"})};
    MinHashSketch sketch;
    sketch.add(set, 3);
    EXPECT_EQ(page("a b c a b c"), sketch.bits());
    EXPECT_EQ(page("c a b c a b c"), sketch.bits());
}

TEST(PageSimhash, FrequencyNumbersTheRepeatsForTheSketch)
{
    PageOptions freq;
    freq.weighting = Weighting::frequency;
    // "a b c a b c": abc twice, bca and cab once; the repeat of abc becomes a feature of its own.
    const uint64_t abc = shingle({"a", "b", "c"});
    const uint64_t set[] = {abc, sh_splitmix64_output(abc + UINT64_C(0x9e3779b97f4a7c15)),
                            shingle({"b", "c", "a"}), shingle({"c", "a", "b"})};
    MinHashSketch sketch;
    sketch.add(set, 4);
    EXPECT_EQ(page("a b c a b c", freq), sketch.bits());
    EXPECT_NE(page("a b c a b c", freq), page("a b c a b c"));
    EXPECT_EQ(page("one two three four five", freq), page("one two three four five"));  // no repeats
}

TEST(PageSimhash, LogWeightingNeedsCharikar)
{
    PageOptions o;
    o.weighting = Weighting::log;
    EXPECT_THROW(PageSimhash p(o), InvalidArgument);
    o.method = Method::charikar;
    EXPECT_NO_THROW(PageSimhash p(o));
}

TEST(PageSimhash, NearDuplicatesAreCloseAndDifferentPagesAreNot)
{
    std::mt19937 rng(9);
    auto words = [&](int n) {
        std::string s;
        for (int i = 0; i < n; ++i) s += "w" + std::to_string(rng() % 5000) + " ";
        return s;
    };
    const std::string base = words(400);
    const std::string edited = base + "one more sentence at the end";
    EXPECT_LE(sh_hamming(page(base), page(edited)), 5);
    EXPECT_GT(sh_hamming(page(base), page(words(400))), 15);
    PageOptions html;
    html.html = true;
    EXPECT_EQ(page("<p>" + base + "</p>", html), page(base));
}

TEST(PageSimhash, RejectsBadShingleSizes)
{
    PageOptions o;
    o.features.size = 0;
    EXPECT_THROW(PageSimhash p(o), InvalidArgument);
    o.features.size = 65;
    EXPECT_THROW(PageSimhash p(o), InvalidArgument);
}

// The default simhash and the legacy min-hashes are minima: each piece's features are folded in as
// it comes, so a page of any size holds only one piece's features (its largest allocation does not
// grow with the page). Charikar's sums keep every feature to the end.
TEST(PageSimhash, MinimaFoldEachPieceSumsKeepTheFeatures)
{
    if (!test::AllocationProbe::available()) GTEST_SKIP() << "the sanitizer keeps its own allocator";
    std::string piece;
    for (int i = 0; i < 2000; ++i) piece += "w" + std::to_string(i) + " ";
    const int pieces = 64;  // 128k features in all, 1 MB of feature hashes
    auto largest_request = [&](auto &&page) {
        test::AllocationProbe probe;
        for (int i = 0; i < pieces; ++i) page.feed(piece.data(), piece.size());
        return probe.largest_request();
    };
    PageOptions sketch, charikar;
    charikar.method = Method::charikar;
    const std::size_t one_piece = 2000 * sizeof(uint64_t);
    EXPECT_LE(largest_request(PageSimhash(sketch)), 4 * one_piece);
    EXPECT_LE(largest_request(PageMinHashes(FeatureOptions{}, false)), 4 * one_piece);
    EXPECT_GE(largest_request(PageSimhash(charikar)), pieces / 2 * one_piece);

    PageSimhash folded(sketch);
    std::string whole;
    for (int i = 0; i < pieces; ++i) {
        folded.feed(piece.data(), piece.size());
        whole += piece;
    }
    EXPECT_EQ(folded.result(), page(whole));
    EXPECT_EQ(folded.result(), page(whole));  // the result stays
}
