// Every shipped model (web/models/models.json) on tests/data/hostile_inputs.txt: URLs, e-mail addresses, HTML
// and Markdown, numbers and prices, dates, names, ALL CAPS, emoji, CJK, 300-word sentences, chat and questions,
// translated with the default options. Nothing may run away: no character repeated more than 4 times in a row
// unless the source repeats it as often, no token more than 3 times in a row, and at most 2 x source tokens + 10
// tokens (the source's tokens with <eos>, the output's too). And copy-through: in at least 90% of the inputs that
// hold a number, URL or e-mail address (found by a regular expression of this test, not by the translator's own
// span finder), every one of them appears in the translation unchanged; and every run of digits in a translation
// is one of its source's (the model invents no number). Copy-through of spans belongs to the Moses pipeline of the
// caption models: a raw-text subword model (SentencePiece) writes URLs, e-mail addresses and names itself, as its
// card and the page say, so for it the copies are counted, not required; the number rule holds for every model.
#include <doctest/doctest.h>

#include "data/text_file.h"
#include "text/utf8.h"
#include "translate/translator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>

using namespace attend;

namespace {

std::string source_dir() { return std::string(ATTEND_SOURCE_DIR); }

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot open " << path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The longest run of each code point in `text`.
std::map<char32_t, int> longest_runs(const std::string& text) {
    std::map<char32_t, int> runs;
    const std::u32string cps = utf8_decode(text);
    int run = 0;
    for (size_t i = 0; i < cps.size(); i++) {
        run = i > 0 && cps[i] == cps[i - 1] ? run + 1 : 1;
        runs[cps[i]] = std::max(runs[cps[i]], run);
    }
    return runs;
}

int longest_token_run(const std::vector<int>& tokens) {
    int best = 0, run = 0;
    for (size_t i = 0; i < tokens.size(); i++) {
        run = i > 0 && tokens[i] == tokens[i - 1] ? run + 1 : 1;
        best = std::max(best, run);
    }
    return best;
}

// The numbers, URLs and e-mail addresses of `text`, trailing punctuation left out.
std::vector<std::string> copyable(const std::string& text) {
    static const std::regex pattern(R"((?:https?|ftp)://[^\s"<>]+|www\.[^\s"<>]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\d+(?:[.,:/-]\d+)*)");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it) {
        std::string s = it->str();
        while (!s.empty() && std::string(".,;:!?)").find(s.back()) != std::string::npos) s.pop_back();
        out.push_back(s);
    }
    return out;
}

// The runs of ASCII digits in `text`.
std::vector<std::string> numbers(const std::string& text) {
    static const std::regex digits(R"([0-9]+)");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), digits); it != std::sregex_iterator(); ++it)
        out.push_back(it->str());
    return out;
}

}  // namespace

TEST_CASE("shipped models never run away on hostile inputs") {
    const std::vector<std::string> inputs = read_lines(source_dir() + "/tests/data/hostile_inputs.txt");
    REQUIRE(inputs.size() >= 100);
    std::ifstream models_json(source_dir() + "/web/models/models.json");
    REQUIRE(models_json.good());
    const nlohmann::json models = nlohmann::json::parse(models_json)["models"];
    REQUIRE(models.size() >= 1);
    for (const nlohmann::json& entry : models) {
        const std::string file = entry.at("file");
        const Translator t = Translator::from_bytes(read_bytes(source_dir() + "/web/models/" + file), file);
        const TranslationOptions options;  // what the CLI, the page and the wasm module use by default
        const bool copies = t.model().source_pipeline.type == TextPipelineType::moses_bpe;
        std::vector<TranslationResult> results(inputs.size());
#pragma omp parallel for schedule(dynamic, 1)
        for (long i = 0; i < static_cast<long>(inputs.size()); i++) results[i] = t.translate(inputs[i], options);
        int longest_char_run = 0, worst_token_run = 0, with_copyable = 0, copied = 0, left_as_is = 0;
        double worst_ratio = 0;
        for (size_t i = 0; i < inputs.size(); i++) {
            const TranslationResult& r = results[i];
            CAPTURE(file);
            CAPTURE(i + 1);
            CAPTURE(inputs[i]);
            CAPTURE(r.text);
            const std::map<char32_t, int> source_runs = longest_runs(inputs[i]);
            for (const auto& [cp, run] : longest_runs(r.text)) {
                auto in_source = source_runs.find(cp);
                const int allowed = in_source == source_runs.end() ? 4 : std::max(4, in_source->second);
                CHECK(run <= allowed);
                longest_char_run = std::max(longest_char_run, run);
            }
            left_as_is += r.untranslated;
            if (r.untranslated) CHECK(r.text == inputs[i]);
            const int token_run = longest_token_run(r.target_ids);
            CHECK(token_run <= 3);
            worst_token_run = std::max(worst_token_run, token_run);
            const size_t S = r.source_tokens.size();
            CHECK(r.target_ids.size() <= 2 * S + 10);
            worst_ratio = std::max(worst_ratio, static_cast<double>(r.target_ids.size()) / S);
            const std::vector<std::string> source_numbers = numbers(inputs[i]);
            for (const std::string& n : numbers(r.text))
                CHECK(std::find(source_numbers.begin(), source_numbers.end(), n) != source_numbers.end());
            const std::vector<std::string> spans = copyable(inputs[i]);
            if (spans.empty()) continue;
            ++with_copyable;
            bool all = true;
            for (const std::string& span : spans) all = all && r.text.find(span) != std::string::npos;
            copied += all;
        }
        CAPTURE(file);
        REQUIRE(with_copyable >= 30);
        if (copies) CHECK(copied >= 0.9 * with_copyable);
        MESSAGE(file << ": " << inputs.size() << " hostile inputs; longest character run " << longest_char_run
                     << ", longest token run " << worst_token_run << ", largest output/source token ratio "
                     << worst_ratio << "; numbers, URLs and e-mail addresses copied in " << copied << " of "
                     << with_copyable << " inputs that hold them; " << left_as_is
                     << " left as they are (no letters, or mostly unknown tokens)");
    }
}
