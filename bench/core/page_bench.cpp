// Throughput of the page pipeline in the C++ core, in bytes of input per second on one core:
// simhash of page text, the HTML path (visible text alone, then with simhash) and the legacy
// fingerprints of text and of HTML. Each benchmark's bytes are its input: the text column's bytes
// for the text functions, the HTML column's for the HTML ones. Google Benchmark divides them by the
// thread's CPU time (the "CPU" column), which on a shared machine is the per-core figure; the "Time"
// column is wall time.
//
//   make bench-core && ./bench-core-page [PAGES.tsv] [benchmark flags]
//
// PAGES.tsv (or $SIMHASH_BENCH_PAGES) holds one page a line as url<TAB>html<TAB>text in
// PostgreSQL's COPY text format, as the corpus builder writes it. Without it the benchmark runs
// over a small built-in page, which is enough to see that it works but not to quote figures.
#include <benchmark/benchmark.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bit_counts.hpp"
#include "distinct_features.hpp"
#include "html_text.hpp"
#include "min_hashes.hpp"
#include "minhash_sketch.hpp"
#include "page_min_hashes.hpp"
#include "page_simhash.hpp"
#include "text_features.hpp"

namespace {

struct Page {
    std::string html;
    std::string text;
};

std::vector<Page> g_pages;
std::size_t g_html_bytes = 0;
std::size_t g_text_bytes = 0;

// Undoes COPY text-format escaping of one field.
std::string unescape_copy_field(const std::string &field)
{
    std::string out;
    out.reserve(field.size());
    for (std::size_t i = 0; i < field.size(); ++i) {
        if (field[i] != '\\' || i + 1 == field.size()) {
            out.push_back(field[i]);
            continue;
        }
        const char c = field[++i];
        switch (c) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'v': out.push_back('\v'); break;
        case 'x': {
            int v = 0, n = 0;
            while (n < 2 && i + 1 < field.size() && std::isxdigit(static_cast<unsigned char>(field[i + 1]))) {
                const char d = field[++i];
                v = v * 16 + (d <= '9' ? d - '0' : (d | 0x20) - 'a' + 10);
                ++n;
            }
            out.push_back(n ? char(v) : 'x');
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                int v = c - '0', n = 1;
                while (n < 3 && i + 1 < field.size() && field[i + 1] >= '0' && field[i + 1] <= '7') {
                    v = v * 8 + (field[++i] - '0');
                    ++n;
                }
                out.push_back(char(v));
            } else {
                out.push_back(c);
            }
        }
    }
    return out;
}

bool load_pages(const char *path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::string line;
    while (std::getline(in, line)) {
        const auto t1 = line.find('\t');
        const auto t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
        if (t2 == std::string::npos) continue;
        Page page;
        page.html = unescape_copy_field(line.substr(t1 + 1, t2 - t1 - 1));
        page.text = unescape_copy_field(line.substr(t2 + 1));
        g_html_bytes += page.html.size();
        g_text_bytes += page.text.size();
        g_pages.push_back(std::move(page));
    }
    return !g_pages.empty();
}

void use_builtin_page()
{
    Page page;
    page.html =
        "<!DOCTYPE html><html><head><title>Widget reference</title><style>p{margin:0}</style>"
        "</head><body><nav><a href=\"/\">Home</a> &raquo; <a href=\"/api\">API</a></nav><h1>Widget</h1>"
        "<p>The base class for all widgets. It manages the widget lifecycle, layout, states and "
        "style. Ünïcödé text, кириллица and 漢字かな mix with ASCII&nbsp;words.</p>"
        "<!-- generated --><script>var x = 1 < 2;</script><ul><li>show()</li><li>hide()</li></ul>"
        "<footer>&copy; 2024 The Project</footer></body></html>";
    page.text =
        "Widget reference\nHome » API\nWidget\nThe base class for all widgets. It manages the widget "
        "lifecycle, layout, states and style. Ünïcödé text, кириллица and 漢字かな mix with ASCII "
        "words.\nshow()\nhide()\n© 2024 The Project\n";
    for (int i = 0; i < 64; ++i) {
        g_html_bytes += page.html.size();
        g_text_bytes += page.text.size();
        g_pages.push_back(page);
    }
}

simhash::PageOptions default_options(bool html)
{
    simhash::PageOptions options;
    options.html = html;
    return options;
}

// simhash of each page's text with these options, in bytes of text per second.
void time_simhash_text(benchmark::State &state, const simhash::PageOptions &options)
{
    for (auto _ : state)
        for (const auto &page : g_pages) {
            simhash::PageSimhash fp(options);
            fp.feed(page.text.data(), page.text.size());
            benchmark::DoNotOptimize(fp.result());
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_text_bytes));
}

void BM_SimhashText(benchmark::State &state) { time_simhash_text(state, default_options(false)); }

// The textbook simhash (method 'charikar'): same front end, Charikar's sum instead of the sketch.
void BM_SimhashTextCharikar(benchmark::State &state)
{
    auto options = default_options(false);
    options.method = simhash::Method::charikar;
    time_simhash_text(state, options);
}

// The front end that simhash(text) and fingerprints(text) share: tokens, shingle hashes, distinct
// features. What each adds to it is its combination step (Charikar, or 128 min-hashes).
void BM_FeaturesText(benchmark::State &state)
{
    const simhash::FeatureOptions options;
    std::vector<uint64_t> features;
    for (auto _ : state)
        for (const auto &page : g_pages) {
            simhash::FeatureStream stream(options);
            features.clear();
            stream.feed(page.text.data(), page.text.size(), features);
            stream.finish(features);
            simhash::keep_distinct(features);
            benchmark::DoNotOptimize(features.data());
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_text_bytes));
}

// The distinct features of every page's text, computed once for the two benchmarks below.
const std::vector<std::vector<uint64_t>> &page_features()
{
    static const std::vector<std::vector<uint64_t>> all = [] {
        std::vector<std::vector<uint64_t>> out;
        for (const auto &page : g_pages) {
            simhash::FeatureStream stream{simhash::FeatureOptions()};
            std::vector<uint64_t> features;
            stream.feed(page.text.data(), page.text.size(), features);
            stream.finish(features);
            simhash::keep_distinct(features);
            out.push_back(std::move(features));
        }
        return out;
    }();
    return all;
}

// The combination steps alone, from the pages' distinct features: the one-bit min-hash sketch
// (what simhash(text) adds to the front end), Charikar (what method 'charikar' adds) and the 128
// min-hashes (what fingerprints(text) adds). Their bytes are
// the text bytes the features came from, so that the rates compare with the others.
void BM_SketchStep(benchmark::State &state)
{
    const auto &features = page_features();
    for (auto _ : state)
        for (const auto &f : features) {
            simhash::MinHashSketch sketch;
            sketch.add(f.data(), f.size());
            benchmark::DoNotOptimize(sketch.bits());
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_text_bytes));
}

void BM_CharikarStep(benchmark::State &state)
{
    const auto &features = page_features();
    for (auto _ : state)
        for (const auto &f : features)
            benchmark::DoNotOptimize(simhash::unweighted_simhash(f.data(), f.size()));
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_text_bytes));
}

void BM_MinHashStep(benchmark::State &state)
{
    const auto &features = page_features();
    uint64_t out[simhash::kMinHashes];
    for (auto _ : state)
        for (const auto &f : features) {
            simhash::min_hashes(f.data(), f.size(), out);
            benchmark::DoNotOptimize(out[0]);
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_text_bytes));
}

void BM_HtmlText(benchmark::State &state)
{
    std::string out;
    for (auto _ : state)
        for (const auto &page : g_pages) {
            simhash::HtmlText extractor;
            out.clear();
            extractor.feed(page.html.data(), page.html.size(), out);
            extractor.finish(out);
            benchmark::DoNotOptimize(out.data());
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_html_bytes));
}

void BM_SimhashHtml(benchmark::State &state)
{
    const auto options = default_options(true);
    for (auto _ : state)
        for (const auto &page : g_pages) {
            simhash::PageSimhash fp(options);
            fp.feed(page.html.data(), page.html.size());
            benchmark::DoNotOptimize(fp.result());
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_html_bytes));
}

void BM_FingerprintsText(benchmark::State &state)
{
    const auto options = default_options(false);
    uint64_t out[simhash::kMinHashes];
    for (auto _ : state)
        for (const auto &page : g_pages) {
            simhash::PageMinHashes fp(options.features, options.html);
            fp.feed(page.text.data(), page.text.size());
            fp.result(out);
            benchmark::DoNotOptimize(out[0]);
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_text_bytes));
}

void BM_FingerprintsHtml(benchmark::State &state)
{
    const auto options = default_options(true);
    uint64_t out[simhash::kMinHashes];
    for (auto _ : state)
        for (const auto &page : g_pages) {
            simhash::PageMinHashes fp(options.features, options.html);
            fp.feed(page.html.data(), page.html.size());
            fp.result(out);
            benchmark::DoNotOptimize(out[0]);
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(g_html_bytes));
}

BENCHMARK(BM_SimhashText)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimhashTextCharikar)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FeaturesText)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SketchStep)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CharikarStep)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MinHashStep)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HtmlText)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimhashHtml)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FingerprintsText)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FingerprintsHtml)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char **argv)
{
    // The pages file is the first argument that is not a benchmark flag.
    const char *path = std::getenv("SIMHASH_BENCH_PAGES");
    std::vector<char *> args;
    for (int i = 0; i < argc; ++i) {
        if (i > 0 && argv[i][0] != '-')
            path = argv[i];
        else
            args.push_back(argv[i]);
    }
    if (path && *path) {
        if (!load_pages(path)) {
            std::cerr << "bench-core-page: cannot read pages from " << path << "\n";
            return 1;
        }
    } else {
        std::cerr << "bench-core-page: no pages file given; using a small built-in page\n";
        use_builtin_page();
    }
    benchmark::AddCustomContext("pages", std::to_string(g_pages.size()));
    benchmark::AddCustomContext("text_bytes", std::to_string(g_text_bytes));
    benchmark::AddCustomContext("html_bytes", std::to_string(g_html_bytes));
    int n = int(args.size());
    benchmark::Initialize(&n, args.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
