// Every shipped model (web/models/models.json) still scores what its `check` entry records: the first N sentences
// of its test set, raw source through the model's own pipeline. A caption model's set is a Multi30K split: BLEU on
// lowercased tokenized text against the official references, and (where recorded) cased 13a BLEU and chrF2 on the
// detokenized text against the raw ones. Another model's is a test file of the data folder (`check.test`, a corpus
// spec as `attend train --test` takes it): cased BLEU with the target language's tokenizer and chrF2.
// This catches any change to the tokenizer, BPE, model, search or file format that moves a shipped model's output.
// The rules written for the caption models (names, numbers, escapes, repeats) are checked on the caption models.
//
// On other instruction sets: the weights are fixed, but AVX-512, AVX2 and SSE builds round differently (FMA or
// not, vector width, summation order), which moves a score by about 1e-6 of its size; a beam decision changes
// only where two hypotheses score closer than that. The first 200 sentences hold no such near-tie: the
// -march=native (AVX-512) and the portable (SSE2, no FMA) builds give every shipped model the same translations
// there, token for token. The 0.1 tolerance covers the two decimals the value is recorded with, not drift.
#include <doctest/doctest.h>

#include "data/data_dir.h"
#include "data/multi30k.h"
#include "data/parallel_corpus.h"
#include "data/text_file.h"
#include "error.h"
#include "text/bleu.h"
#include "text/case_mapping.h"
#include "text/translation_metrics.h"
#include "text/utf8.h"
#include "translate/model_file.h"
#include "translate/translator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>

using namespace attend;

namespace {

std::string models_dir() { return std::string(ATTEND_SOURCE_DIR) + "/web/models"; }

nlohmann::json read_models_json() {
    std::ifstream in(models_dir() + "/models.json");
    REQUIRE_MESSAGE(in.good(), "cannot open " << models_dir() << "/models.json");
    return nlohmann::json::parse(in);
}

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot open " << path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The pairs of a check's test file (`check.test`, relative to the data folder).
std::pair<std::vector<std::string>, std::vector<std::string>> check_test_pairs(const nlohmann::json& check) {
    std::vector<std::string> sources, refs;
    read_corpus_source(parse_corpus_source(default_data_dir() + "/" + check.at("test").get<std::string>()),
                       [&](std::string_view s, std::string_view t, std::int64_t) {
                           sources.emplace_back(s);
                           refs.emplace_back(t);
                       });
    return {sources, refs};
}

// The source sentences a model is checked on: its Multi30K split's, or its test file's.
std::vector<std::string> check_sources(const nlohmann::json& check, const TranslatorModel& m) {
    if (check.contains("split"))
        return read_lines(multi30k_path(default_data_dir(), check.at("split"), m.source_pipeline.lang, TextForm::raw));
    return check_test_pairs(check).first;
}

bool is_caption_model(const nlohmann::json& entry) { return entry.at("check").contains("split"); }

// A caption model, loaded, with the raw test2016 sentences of its source language.
struct ShippedModel {
    std::string file;
    Translator translator;
    std::vector<std::string> test2016;

    // test2016 sentence i without its final period: for marks to be put around or after it
    std::string caption(size_t i) const {
        std::string s = test2016.at(i);
        while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.pop_back();
        return s;
    }
};

std::vector<ShippedModel> caption_models() {
    std::vector<ShippedModel> out;
    const nlohmann::json models = read_models_json()["models"];  // kept: see the batched-greedy test
    REQUIRE(models.size() >= 1);
    for (const nlohmann::json& entry : models) {
        if (!is_caption_model(entry)) continue;
        const std::string file = entry.at("file");
        Translator translator = Translator::from_bytes(read_bytes(models_dir() + "/" + file), file);
        const Lang lang = translator.model().source_pipeline.lang;
        out.push_back({file, std::move(translator),
                       read_lines(multi30k_path(default_data_dir(), "test_2016_flickr", lang, TextForm::raw))});
    }
    REQUIRE(out.size() >= 4);
    return out;
}

// Translates `sources` as one batch with greedy and with beam search, and calls check(i, translation of source i)
// with the beam, the source and its translation captured.
template <class Check>
void check_translations(const Translator& translator, const std::vector<std::string>& sources, Check check) {
    for (int beam : {1, 5}) {
        TranslationOptions options;
        options.beam_size = beam;
        const std::vector<TranslationResult> results = translator.translate_batch(sources, options);
        for (size_t i = 0; i < sources.size(); i++) {
            CAPTURE(beam);
            CAPTURE(sources[i]);
            CAPTURE(results[i].text);
            check(i, results[i]);
        }
    }
}

}  // namespace

TEST_CASE("shipped models score their recorded BLEU") {
    const nlohmann::json models = read_models_json()["models"];
    REQUIRE(models.size() >= 1);
    for (const nlohmann::json& entry : models) {
        const std::string id = entry.at("id");
        CAPTURE(id);
        REQUIRE_MESSAGE(entry.contains("check"), id << " has no `check` entry in models.json");
        const nlohmann::json& check = entry["check"];
        const int sentences = check.at("sentences");

        Translator translator = Translator::from_bytes(read_bytes(models_dir() + "/" + entry.at("file").get<std::string>()),
                                                       entry.at("file").get<std::string>());
        const TranslatorModel& m = translator.model();
        // What the page and `attend translate` use: the model's own defaults (its tuned length penalty), which the
        // check records.
        TranslationOptions options = translator.default_options();
        CHECK(options.length_penalty == doctest::Approx(check.at("length_penalty").get<double>()));
        CHECK(options.min_confidence == doctest::Approx(check.at("min_confidence").get<double>()));
        options.beam_size = check.at("beam");
        auto translate_all = [&](const std::vector<std::string>& sources, std::vector<std::string>& hyps,
                                 std::vector<std::string>& texts) {
            hyps.assign(sources.size(), "");
            texts.assign(sources.size(), "");
#pragma omp parallel for schedule(dynamic, 4)
            for (long i = 0; i < static_cast<long>(sources.size()); i++) {
                const TranslationResult r = translator.translate(sources[i], options);
                hyps[i] = r.tokenized;
                texts[i] = r.text;
            }
        };
        std::vector<std::string> hyps, texts;

        if (!is_caption_model(entry)) {
            auto [sources, refs] = check_test_pairs(check);
            REQUIRE(sources.size() >= static_cast<size_t>(sentences));
            sources.resize(sentences);
            refs.resize(sentences);
            translate_all(sources, hyps, texts);
            const DetokenizedScores scores =
                score_detokenized(texts, refs, default_bleu_tokenize(language_code(m.target_pipeline)));
            MESSAGE(id << " on the first " << sentences << " pairs of " << check.at("test").get<std::string>() << ":\n"
                       << scores.format());
            CHECK(std::abs(scores.bleu.score - check.at("cased_bleu").get<double>()) <= 0.1);
            CHECK(std::abs(scores.chrf.score - check.at("chrf").get<double>()) <= 0.1);
            continue;
        }
        const std::string split = check.at("split");
        const float recorded_bleu = check.at("bleu");
        const std::string data = default_data_dir();
        std::vector<std::string> sources = read_lines(multi30k_path(data, split, m.source_pipeline.lang, TextForm::raw));
        std::vector<std::string> refs = read_lines(multi30k_path(data, split, m.target_pipeline.lang, TextForm::tok));
        std::vector<std::string> raw_refs = read_lines(multi30k_path(data, split, m.target_pipeline.lang, TextForm::raw));
        REQUIRE(sources.size() >= static_cast<size_t>(sentences));
        sources.resize(sentences);
        refs.resize(sentences);
        raw_refs.resize(sentences);
        translate_all(sources, hyps, texts);
        const TranslationScores scores = score_translations(hyps, texts, refs, raw_refs);
        MESSAGE(id << " on the first " << sentences << " " << split << " sentences: " << scores.format()
                   << " (recorded BLEU " << recorded_bleu << ")");
        CHECK(std::abs(scores.bleu.score - recorded_bleu) <= 0.1);
        if (check.contains("cased_bleu")) CHECK(std::abs(scores.cased_13a.score - check["cased_bleu"].get<double>()) <= 0.1);
        if (check.contains("chrf")) CHECK(std::abs(scores.chrf.score - check["chrf"].get<double>()) <= 0.1);
    }
}

TEST_CASE("shipped models: batched greedy search gives the tokens of one sentence at a time") {
    const nlohmann::json models = read_models_json()["models"];  // kept: a range-for over read_models_json()["models"]
                                                                 // would walk a destroyed temporary
    for (const nlohmann::json& entry : models) {
        Translator translator = Translator::from_bytes(read_bytes(models_dir() + "/" + entry.at("file").get<std::string>()),
                                                       entry.at("file").get<std::string>());
        const TranslatorModel& m = translator.model();
        std::vector<std::string> sources = check_sources(entry.at("check"), m);
        REQUIRE(sources.size() >= 200);
        sources.resize(200);
        // A source that says a phrase twice in a row lets its translation do so: its row carries that exemption alone.
        const std::map<std::string, std::string> twice = {
            {"en", "Two girls walk hand in hand in hand in a park."},
            {"de", "Zwei Mädchen gehen Hand in Hand in Hand im Park."},
            {"fr", "Deux filles marchent main dans la main dans la main."},
            {"zh", "两个女孩手拉手手拉手在公园里散步。"}};
        sources.push_back(twice.at(language_code(m.source_pipeline)));
        TranslationOptions options;
        options.beam_size = 1;
        options.max_batch_size = 32;
        const std::vector<TranslationResult> batched = translator.translate_batch(sources, options);
        int same = 0;
        for (size_t i = 0; i < sources.size(); i++)
            same += batched[i].target_ids == translator.translate(sources[i], options).target_ids;
        MESSAGE(entry.at("id").get<std::string>() << ": " << same << " of " << sources.size() << " batched translations equal");
        CHECK(same == static_cast<int>(sources.size()));
    }
}

// Each row of a batch carries its own sentence's rules: the numbers it may write, the phrases and pieces it says
// again, the characters it repeats. So a sentence that exercises each of them translates in a batch, among sentences
// that allow none of it, exactly as it does alone.
TEST_CASE("shipped models: a batch row keeps its own sentence's rules, so batched greedy gives one sentence's tokens") {
    const std::map<std::string, std::vector<std::string>> own = {
        {"en",
         {"The children came home at 5 pm.", "Three men in 1950s suits walk past 2 cars.",
          "Two girls walk hand in hand in hand in a park.", "A man shouts \"Goooooal!\" at a game.",
          "A sign that says \"STOP\" (in red) stands by a road.", "A boy laughs hahahahaha at a dog.",
          "Zzzzzz, a cat sleeps on 3 pillows."}},
        {"de",
         {"Die Kinder kamen um 5 Uhr nach Hause.", "Drei Männer in Anzügen der 1950er gehen an 2 Autos vorbei.",
          "Zwei Mädchen gehen Hand in Hand in Hand im Park.", "Ein Mann ruft \"Toooooor!\" bei einem Spiel.",
          "Ein Schild mit der Aufschrift \"STOP\" (in Rot) steht an einer Straße.",
          "Ein Junge lacht hahahahaha über einen Hund.", "Zzzzzz, eine Katze schläft auf 3 Kissen."}},
        {"fr",
         {"Les enfants sont rentrés à 5 heures.", "Trois hommes en costumes des années 1950 passent devant 2 voitures.",
          "Deux filles marchent main dans la main dans la main.", "Un homme crie \"Buuuuut !\" pendant un match.",
          "Un panneau qui dit \"STOP\" (en rouge) est près d'une route.", "Un garçon rit hahahahaha devant un chien.",
          "Zzzzzz, un chat dort sur 3 coussins."}},
        {"zh",
         {"孩子们5点回家。", "三个男人走过2辆车和12朵花。", "两个女孩手拉手手拉手在公园里散步。", "他喊\"进球啦啦啦啦啦啦\"!",
          "牌子上写着\"停\"(红色)。", "哈哈哈哈哈哈哈哈,他笑了。"}}};
    const nlohmann::json models = read_models_json()["models"];  // kept: see the batched-greedy test
    for (const nlohmann::json& entry : models) {
        Translator translator = Translator::from_bytes(read_bytes(models_dir() + "/" + entry.at("file").get<std::string>()),
                                                       entry.at("file").get<std::string>());
        CAPTURE(entry.at("id").get<std::string>());
        const TranslatorModel& m = translator.model();
        TranslationOptions options;
        options.beam_size = 1;
        options.max_batch_size = 8;
        // Each rule that reads the source has something to read in one of the sentences.
        const std::vector<std::string>& rules = own.at(language_code(m.source_pipeline));
        bool numbers = false, phrase = false, piece = false, marks = false, chars = false;
        for (const std::string& s : rules) {
            const std::vector<std::string> tokens = translator.source_tokens(s);
            const SearchOptions search = translator.search_options(options, tokens, s);
            numbers |= !search.source_numbers.empty();
            chars |= !search.char_run_exempt.empty();
            marks |= s.find('"') != std::string::npos && s.find('(') != std::string::npos;
            for (int k = 2; k <= options.no_adjacent_repeat_size; k++)
                for (size_t i = 0; i + 2 * k <= tokens.size(); i++)
                    phrase |= std::equal(tokens.begin() + i, tokens.begin() + i + k, tokens.begin() + i + k);
            for (size_t i = 0, run = 1; i + 1 < tokens.size(); i++) {
                run = tokens[i + 1] == tokens[i] ? run + 1 : 1;
                piece |= run > static_cast<size_t>(options.max_piece_run);
            }
        }
        CHECK(numbers);
        CHECK(phrase);
        CHECK(piece);
        CHECK(marks);
        CHECK(chars);
        // Among sentences of the test set that allow none of it, in batches of 8.
        std::vector<std::string> sources = check_sources(entry.at("check"), m);
        REQUIRE(sources.size() >= 40);
        sources.resize(40);
        for (size_t i = 0; i < rules.size(); i++) sources.insert(sources.begin() + 5 * i, rules[i]);
        const std::vector<TranslationResult> batched = translator.translate_batch(sources, options);
        for (size_t i = 0; i < sources.size(); i++) {
            CAPTURE(sources[i]);
            CHECK(batched[i].target_ids == translator.translate(sources[i], options).target_ids);
        }
    }
}

// A caption model knows few numbers and invents them ("came home at 5 pm" came out as "bei 5550 aufgelegt"): in
// what it writes, every number in digits is one of the source's, however the translation goes otherwise. Copy-through
// takes most numbers out of the model's hands; these are the ones it leaves there (a lone digit before a word, a
// number with letters glued on), and every test2016 caption with a digit.
TEST_CASE("shipped models: every number a translation writes in digits is one of the source's") {
    auto numbers = [](const std::string& text) {  // the runs of ASCII digits
        static const std::regex digits(R"([0-9]+)");
        std::vector<std::string> out;
        for (auto it = std::sregex_iterator(text.begin(), text.end(), digits); it != std::sregex_iterator(); ++it)
            out.push_back(it->str());
        return out;
    };
    const std::map<Lang, std::vector<std::string>> own = {
        {Lang::en, {"The children came home at 5 pm.", "Three men in 1950s suits walk past 2 cars.",
                    "A boy with the number 7 on his shirt kicks a ball.", "A woman holds 3 balloons and 12 roses.",
                    "A man [in brackets] holds a sign."}},  // "&#91;" to the model: its digits are no number
        {Lang::de, {"Die Kinder kamen um 5 Uhr nach Hause.", "Ein Junge mit der Nummer 7 auf dem Trikot schießt.",
                    "Eine Frau hält 3 Ballons und 12 Rosen.",
                    "Drei Männer in Anzügen der 1950er gehen an 2 Autos vorbei."}},
        {Lang::fr, {"Les enfants sont rentrés à 5 heures.", "Un garçon avec le numéro 7 sur son maillot tire.",
                    "Une femme tient 3 ballons et 12 roses.", "Trois hommes en costumes des années 1950 passent."}}};
    for (const ShippedModel& m : caption_models()) {
        CAPTURE(m.file);
        std::vector<std::string> sources = own.at(m.translator.model().source_pipeline.lang);
        const size_t own_sentences = sources.size();
        for (const std::string& caption : m.test2016)
            if (!numbers(caption).empty()) sources.push_back(caption);
        REQUIRE(sources.size() >= own_sentences + 5);
        int written = 0;
        check_translations(m.translator, sources, [&](size_t i, const TranslationResult& r) {
            const std::vector<std::string> allowed = numbers(sources[i]);
            for (const std::string& n : numbers(r.text)) {
                CHECK(std::find(allowed.begin(), allowed.end(), n) != allowed.end());
                written++;
            }
        });
        MESSAGE(m.file << ": " << sources.size() << " sentences, " << written << " numbers written");
        CHECK(written >= static_cast<int>(sources.size()) / 2);  // the rule leaves numbers to be written
    }
}

// The captions the models learned from hold HTML text ("&amp;"), which the Moses tokenizer splits as "&amp; amp ;":
// a model writes that for "&", and the pipeline reads it back as "&". Brackets and bars, escaped as "&#91;" and
// "&#124;", are in no caption: they are read as commas, never as the escape's five pieces.
TEST_CASE("shipped models: an ampersand is translated as one, and a bracket or bar reaches the model as no escape") {
    for (const ShippedModel& m : caption_models()) {
        CAPTURE(m.file);
        const std::vector<std::string> sources = {"A boy & a girl play in the park.", "A man waves [smiling].",
                                                  "A man | a woman."};
        check_translations(m.translator, sources, [&](size_t, const TranslationResult& r) {
            CHECK(r.text.find("amp;") == std::string::npos);
            CHECK(r.text.find("&#") == std::string::npos);
            for (const std::string& t : r.source_tokens) CHECK_MESSAGE(t.find("&#") == std::string::npos, t);
        });
    }
}

// A caption model garbles names it never saw ("dancing with Carlos" came out as "tanzt mit Cargo", "The dog is
// running towards Emma." as "... auf eine Ebene zu.", "Maria is walking her dog" as "Mutter geht ..."): copy-through
// masks a name with a name the model writes back, so the name is in the translation, and the placeholder never is
// (German: "Anna und Peter gehen im Park spazieren." was "After and vendor walking in the park.").
TEST_CASE("shipped models: a name in a sentence is in its translation, and no placeholder is") {
    const std::map<Lang, std::vector<std::pair<std::string, std::vector<std::string>>>> own = {
        {Lang::en,
         {{"A woman in a red dress is dancing with Carlos.", {"Carlos"}},
          {"The dog is running towards Emma.", {"Emma"}},
          {"A girl named Sophie is reading a book.", {"Sophie"}},
          {"A crowd watches as Daniela Ortiz sings on stage.", {"Daniela Ortiz"}},
          {"The boy and his friend Lukas are riding bikes with Zoë.", {"Lukas", "Zoë"}},
          {"People are walking through the streets of Marrakesh with Jonas, Lena and Paul.", {"Marrakesh", "Jonas", "Lena", "Paul"}},
          {"A man named Peter holds 25 balloons for Obama.", {"Peter", "25", "Obama"}},
          {"Laura and Tom are shopping at the market.", {"Laura", "Tom"}},
          {"Maria is walking her dog in the park.", {"Maria"}},
          // Given names the captions hold ("John Deere"), which the models garble unmasked.
          {"John and Mary are walking in the park.", {"John", "Mary"}},
          {"Tom throws a ball to his dog.", {"Tom"}},
          // A title with its period and the name after it: one name ("Smith" after "Dr." was dropped).
          {"A man is talking to Dr. Smith.", {"Dr. Smith"}},
          {"Mrs. Brown and Prof. Okafor are walking in the park.", {"Mrs. Brown", "Prof. Okafor"}}}},
        {Lang::fr,
         {{"Une femme danse avec Carlos dans la rue.", {"Carlos"}},
          {"Le chien court vers Emma.", {"Emma"}},
          {"Un bébé dort dans les bras de Julia.", {"Julia"}},
          {"Les étudiants écoutent Lukas et Sophie.", {"Lukas", "Sophie"}},
          {"Marie est assise sur un banc.", {"Marie"}},
          {"Paul et Julie jouent aux échecs dans le parc.", {"Paul", "Julie"}},
          {"Thomas lance une balle à son chien.", {"Thomas"}},
          {"Un homme parle avec M. Okafor dans le parc.", {"M. Okafor"}}}},
        // German capitalizes every noun: only given names are masked.
        {Lang::de,
         {{"Anna und Peter gehen im Park spazieren.", {"Anna", "Peter"}},
          {"Ein Mann namens Peter liest ein Buch.", {"Peter"}},
          {"Eine Frau tanzt mit Thomas.", {"Thomas"}},
          {"Ein Mädchen namens Sophie liest mit Lukas ein Buch.", {"Sophie", "Lukas"}},
          {"Max fährt mit dem Fahrrad den Hügel hinunter.", {"Max"}},
          {"Ein Mann spricht mit Dr. Okafor im Park.", {"Dr. Okafor"}}}}};
    for (const ShippedModel& m : caption_models()) {
        CAPTURE(m.file);
        const Lang lang = m.translator.model().source_pipeline.lang;
        std::vector<std::string> sources;
        for (const auto& [text, names] : own.at(lang)) sources.push_back(text);
        // The model's own placeholders (attend.decoding), else the default ones.
        const std::vector<std::string> placeholders =
            m.translator.info()["decoding"]["name_placeholders"].get<std::vector<std::string>>();
        check_translations(m.translator, sources, [&](size_t i, const TranslationResult& r) {
            CHECK(r.source_tokens != m.translator.source_tokens(sources[i]));  // masked
            for (const std::string& name : own.at(lang)[i].second) CHECK(r.text.find(name) != std::string::npos);
            // No placeholder shows that the source did not hold ("Obama" in one of them).
            for (const std::string& placeholder : placeholders)
                if (sources[i].find(placeholder) == std::string::npos) CHECK(r.text.find(placeholder) == std::string::npos);
        });
    }
}

// The models drop some name placeholders where they write others back: en→fr wrote "A man named Obama is reading a
// book." as "Un homme nommé nommé lit un livre.", so that "John" could only go at the end ("... un livre John.").
// Such a text is translated again with the model's other placeholders; a name after a naming verb takes no "de".
TEST_CASE("shipped models: a name after \"named\" stays in its place") {
    const std::vector<std::pair<std::string, std::string>> sentences = {
        {"A man named John is reading a book.", "John"},
        {"A woman named Mary is cooking dinner.", "Mary"},
        {"A man named Peter rides a bike.", "Peter"}};
    std::vector<std::string> sources;
    for (const auto& [text, name] : sentences) sources.push_back(text);
    for (const ShippedModel& m : caption_models()) {
        if (m.translator.model().source_pipeline.lang != Lang::en) continue;
        CAPTURE(m.file);
        check_translations(m.translator, sources, [&](size_t i, const TranslationResult& r) {
            const std::string& name = sentences[i].second;
            const size_t at = r.text.find(name);
            REQUIRE(at != std::string::npos);
            CHECK(r.text.find(name, at + 1) == std::string::npos);  // once
            CHECK(r.text.substr(at + name.size()) != ".");  // where the model wrote it, not put at the end
            CHECK(r.text.find("de " + name) == std::string::npos);
        });
    }
}

// The sentences of each model's direction: with the default options (greedy and beam search; beam_only: the model's
// own options, a rule of beam search), `found` finds nothing in any translation; with the model's own options less
// the rule (`off`), it finds something in at least half of them (the sentences need the rule).
template <class Found, class Off>
void check_rule_is_needed(const std::map<std::pair<Lang, Lang>, std::vector<std::string>>& sentences, Found found,
                          Off off, bool beam_only = false) {
    int count = 0, without = 0;
    for (const ShippedModel& m : caption_models()) {
        CAPTURE(m.file);
        const std::vector<std::string>& sources =
            sentences.at({m.translator.model().source_pipeline.lang, m.translator.model().target_pipeline.lang});
        if (!beam_only) {
            check_translations(m.translator, sources,
                               [&](size_t, const TranslationResult& r) { CHECK(found(r) == ""); });
        } else {
            REQUIRE(m.translator.default_options().beam_size > 1);
            const std::vector<TranslationResult> results =
                m.translator.translate_batch(sources, m.translator.default_options());
            for (size_t i = 0; i < sources.size(); i++) {
                CAPTURE(sources[i]);
                CAPTURE(results[i].text);
                CHECK(found(results[i]) == "");
            }
        }
        TranslationOptions options = m.translator.default_options();  // the model's length penalty, as they were found
        off(options);
        for (const TranslationResult& r : m.translator.translate_batch(sources, options)) {
            count++;
            if (!found(r).empty()) without++;
        }
    }
    CHECK(without * 2 >= count);
}

// A small model falls into saying a phrase twice ("ein Pferd ein Pferd", "in midair in midair"): each of these
// sentences did so, without the phrase limit (no_adjacent_repeat_size), with the model of its direction shipped when
// they were chosen. With it, no translation holds a phrase of 2 to 4 words right after itself; without it, at least
// half of them still do (the sentences need it).
TEST_CASE("shipped models: no phrase of a translation comes right after itself") {
    const std::map<std::pair<Lang, Lang>, std::vector<std::string>> sentences = {
        {{Lang::en, Lang::de},
         {"A cowboy wrangling a horse in a rodeo as the horse does a back kick",
          "An elderly woman using a pink umbrella to shade herself from the sun.",
          "A woman in a red dress with red-hair standing before a bright, multicolored home."}},
        {{Lang::en, Lang::fr},
         {"Two women are strapped to a tree in some type of construction job.",
          "A woman reads a book while sitting in a row of red chairs.",
          "Some men are sitting on a boat near a beach covered in stacked logs and sticks."}},
        {{Lang::de, Lang::en},
         {"Ein dunkelhaariger Mann mit Bart, Brille und Hawaiihemd sitzt auf dem Gras.",
          "Zwei Männer fahren in Kajaks, eines orange und das andere blau, einen Fluss hinab.",
          "Ein Mann und sein Skateboard, die sich mitten im Sprung in der Luft befinden",
          "Auf einem Campingplatz sind nachts an einem Vorzelt Lichter eingeschaltet."}},
        {{Lang::fr, Lang::en},
         {"Un groupe de personnes sont debout, alignées de façon imprécise sur un sol pavé.",
          "Un monument avec une arche dans une ville en pleine journée",
          "Un homme habillé comme Abraham Lincoln parade dans un camion lors d'un défilé."}}};
    // The longest run of 2 to 4 words said twice in a row in the tokenized translation, or "".
    auto said_twice = [](const std::string& tokenized) {
        std::vector<std::string> w;
        for (size_t at = 0; at < tokenized.size();) {
            const size_t end = std::min(tokenized.find(' ', at), tokenized.size());
            if (end > at) w.push_back(tokenized.substr(at, end - at));
            at = end + 1;
        }
        std::string found;
        for (size_t k = 2; k <= 4; k++)
            for (size_t i = 0; i + 2 * k <= w.size(); i++)
                if (std::equal(w.begin() + i, w.begin() + i + k, w.begin() + i + k)) {
                    found.clear();
                    for (size_t j = i; j < i + 2 * k; j++) found += w[j] + " ";
                }
        return found;
    };
    check_rule_is_needed(sentences, [&](const TranslationResult& r) { return said_twice(r.tokenized); },
                         [](TranslationOptions& off) { off.no_adjacent_repeat_size = 0; });
}

// A small model also stutters inside a word, a piece again and again ("ParkParkParkteil" for "parka",
// "colonionionionial"): each of these sentences did so without the piece limit (max_piece_run), with the shipped
// model of its direction. With it, no piece inside a word comes three times in a row; without it, at least half of
// them still do.
TEST_CASE("shipped models: no piece inside a word comes three times in a row") {
    const std::map<std::pair<Lang, Lang>, std::vector<std::string>> sentences = {
        {{Lang::en, Lang::de},
         {"A man in a yellow coat tends a fire, a boy in a parka watches.", "This is a clown at an elementary school.",
          "The hallway has a vast emptiness lit by chandeliers."}},
        {{Lang::en, Lang::fr},
         {"Two people are kissing on a sidewalk in front of a limo while people walk by.",
          "A woman is holding a large check for Kids Food Basket.",
          "A plate with a chocolate covered and cinnamon sugar doughnut"}},
        {{Lang::de, Lang::en},
         {"Eine Frau geht nachts im Mondschein am schäumenden Meer entlang.",
          "Ein Mann in Kolonialkleidung fährt einen Pferdewagen.",
          "Eine Nahaufnahme von Sandwichhälften auf Tellern in halber Höhe"}},
        {{Lang::fr, Lang::en},
         {"Un tas de tireuses à bière dans un bar avec des lumières de Noël au plafond.",
          "On voit trois jambes d'enfants tandis qu'ils sont debout près d'un tas de bombes à serpentins.",
          "Un jeune homme en tenue colorée avec des lésions cutanées visibles est assis et fume une cigarette."}}};
    // The first piece inside a word ("ter@@") that the tokens hold three times in a row, or "".
    auto piece_thrice = [](const std::vector<std::string>& t) {
        for (size_t i = 0; i + 2 < t.size(); i++)
            if (t[i].size() > 2 && t[i].compare(t[i].size() - 2, 2, "@@") == 0 && t[i] == t[i + 1] && t[i] == t[i + 2])
                return t[i];
        return std::string();
    };
    check_rule_is_needed(sentences, [&](const TranslationResult& r) { return piece_thrice(r.target_tokens); },
                         [](TranslationOptions& off) { off.max_piece_run = 0; });
}

// A small model may open a quotation mark or a bracket and end the sentence without closing it ("... gibt in einem
// Waschbecken ein Stofftier mit der Aufschrift „."): each of these sentences did so without close_marks, with the
// shipped model of its direction (beam search, the model's own options). With it, beam search finds a translation that
// closes what it opens for every one; without it, at least half of them still leave one open.
TEST_CASE("shipped models: a translation closes the quotation marks and brackets it opens") {
    const std::map<std::pair<Lang, Lang>, std::vector<std::string>> sentences = {
        {{Lang::en, Lang::de},
         {"People attending a J.P. Morgan Corporate Challenge.",
          "A little blond girl with a polka dot shirt is giving a stuffed animal a \"bath\" in a sink.",
          "A dusk view of the sky from behind a sign that reads Boston.",
          "Red planes are flying in a \"V\" formation with a green plane below them.",
          "Two girls (one dressed in blue, and one dressed in pink) are racing one another on rollerskates."}},
        {{Lang::en, Lang::fr},
         {"A white truck transport trailer with one end crumpled and the word \"NOTHING LEF NOTHING RIGHT\" scrawled on it "
          "side on a dirt ground.",
          "A man in a blue shirt is holding a sign that says \"Come on now ... what's gayer than tea.\"",
          "A little blond girl with a polka dot shirt is giving a stuffed animal a \"bath\" in a sink.",
          "A man is walking past a large sign that says E.S.E. Electronics."}},
        {{Lang::de, Lang::en},
         {"Ein Jugendlicher in einem schwarzen T-Shirt mit dem Aufdruck \"Asian Pacific 2007\" sitzt und spielt eine "
          "Trommel.",
          "Zwei Mädchen (eine in Blau und die andere in Pink) liefern sich ein Rennen auf Rollschuhen."}},
        {{Lang::fr, Lang::en},
         {"Un jeune avec un T-shirt noir où est écrit \"Asian Pacific 2007\" joue de la percussion assis.",
          "Un embouteillage à l'angle avec le panneau stop incliné.",
          "Un homme en polo bleue tient une pancarte qui dit : \"Allez quoi... qu'est-ce qu'il y a de plus gay que le "
          "thé\"."}}};
    // What the text leaves open or closes out of turn: an odd count of quotation marks (straight or typographic, as
    // the detokenizer writes them for the language), a bracket closed before it opened or never closed; "" if none.
    auto left_open = [](const TranslationResult& r) {
        const std::u32string text = utf8_decode(r.text);
        int quotes = 0, depth = 0;
        for (char32_t c : text) {
            quotes += c == U'"' || c == U'„' || c == U'“' || c == U'”' || c == U'«' || c == U'»';
            depth += (c == U'(' || c == U'[') - (c == U')' || c == U']');
            if (depth < 0) return std::string("a bracket closed that none opened");
        }
        if (quotes % 2) return std::string("a quotation mark left open");
        return std::string(depth > 0 ? "a bracket left open" : "");
    };
    REQUIRE(TranslationOptions().close_marks);  // on by default
    check_rule_is_needed(sentences, left_open, [](TranslationOptions& off) { off.close_marks = false; }, true);
}

// Text in capitals is rare in training data, and a cased model garbles it ("A MAN IS WALKING HIS DOG." came out as
// "Ein AAAIIINIIIAAA-..."): it reads the sentence in sentence case instead, and writes its translation in capitals.
TEST_CASE("shipped models: a sentence in capitals is read in sentence case and translated into capitals") {
    for (const ShippedModel& shipped : caption_models()) {
        const std::string& file = shipped.file;
        CAPTURE(file);
        const Translator& translator = shipped.translator;
        std::vector<std::string> sources = shipped.test2016;
        sources.resize(8);
        sources.push_back("Visit www.example.com/Photos for 12 pictures of the dogs.");  // a span survives the round trip
        std::vector<std::string> shouted;
        for (const std::string& s : sources) shouted.push_back(uppercase(s));
        TranslationOptions options;
        options.beam_size = 1;
        const std::vector<TranslationResult> batched = translator.translate_batch(shouted, options);
        for (size_t i = 0; i < sources.size(); i++) {
            CAPTURE(shouted[i]);
            REQUIRE(in_capitals(shouted[i]));
            const TranslationResult read_as = translator.translate(capitalize_first(lowercase(shouted[i])), options);
            const TranslationResult r = translator.translate(shouted[i], options);
            CHECK(r.source_tokens == read_as.source_tokens);
            CHECK(r.target_ids == read_as.target_ids);
            CHECK(r.tokenized == read_as.tokenized);  // what the model wrote, in its case
            CHECK(r.text == uppercase(read_as.text));
            CHECK(batched[i].text == r.text);
            CHECK(translator.translate_document(shouted[i], options).text == r.text);
            TranslationOptions as_is = options;
            as_is.recase_capitals = false;
            as_is.copy_through = false;  // the tokens of the whole text, no span masked
            const TranslationResult raw = translator.translate(shouted[i], as_is);
            CHECK(raw.source_tokens == translator.source_tokens(shouted[i]));
            CHECK(raw.source_tokens != r.source_tokens);
        }
        CHECK(translator.translate(shouted.back(), options).text.find("WWW.EXAMPLE.COM/PHOTOS") != std::string::npos);
        // Mixed case and a lone acronym are translated as they are.
        for (const std::string& text : {std::string("The USA and the UK."), std::string("STOP!")})
            CHECK(translator.translate(text, options).source_tokens == translator.source_tokens(text));
    }
}

// What a model cannot read (another script) or need not (no letters: "50%", "?") it would only replace by an
// invented caption: such a sentence is left as it is, in every path a caller can take; the unreadable with a warning.
TEST_CASE("shipped models: a sentence without letters, or mostly of unknown tokens, is left as it is") {
    for (const ShippedModel& shipped : caption_models()) {
        const std::string& file = shipped.file;
        CAPTURE(file);
        const Translator& translator = shipped.translator;
        std::vector<std::string> sources = shipped.test2016;
        const std::string known = sources[0];
        const std::vector<std::string> unreadable = {"東京は日本の首都です。", "Привет, как дела?", "Γειά σου κόσμε.",
                                                     "שלום עולם"};
        const std::vector<std::string> letterless = {"😀😀😀😀😀", "50%", "?", "2024", "$100", "1.", "12:30 - 13:45"};
        TranslationOptions options;
        options.beam_size = 1;
        std::vector<std::string> batch = unreadable;
        batch.insert(batch.begin() + 2, known);
        batch.insert(batch.end(), letterless.begin(), letterless.end());
        const std::vector<TranslationResult> batched = translator.translate_batch(batch, options);
        for (size_t i = 0; i < batch.size(); i++) {
            CAPTURE(batch[i]);
            const TranslationResult r = translator.translate(batch[i], options);
            CHECK(batched[i].text == r.text);
            CHECK(batched[i].untranslated == r.untranslated);
            CHECK(batched[i].warnings == r.warnings);
            if (batch[i] == known) {
                CHECK_FALSE(r.untranslated);
                CHECK(r.warnings.empty());
                continue;
            }
            CHECK(r.untranslated);
            CHECK(r.text == batch[i]);
            CHECK(r.tokenized == batch[i]);
            CHECK(r.target_ids.empty());
            if (std::find(letterless.begin(), letterless.end(), batch[i]) != letterless.end()) {
                CHECK(r.warnings.empty());  // nothing went wrong: there was nothing to translate
                continue;
            }
            REQUIRE(r.warnings.size() == 1);
            CHECK(r.warnings[0].rfind("not translated: ", 0) == 0);
            CHECK(r.warnings[0].find("source tokens are unknown to this model") != std::string::npos);
        }
        // In a document only that sentence stays as it is; with attention maps asked for, it has none.
        options.return_attention = true;
        const DocumentTranslation doc = translator.translate_document(known + " " + unreadable[1], options);
        REQUIRE(doc.sentences.size() == 2);
        CHECK_FALSE(doc.sentences[0].result.untranslated);
        CHECK(doc.sentences[1].result.untranslated);
        CHECK(doc.sentences[1].result.cross.layers == 0);
        CHECK(doc.text == doc.sentences[0].result.text + " " + unreadable[1]);
        CHECK(doc.warnings.size() == 1);
    }
}

// A caption model asked to translate everyday speech invents a caption ("Tea, please." came out as "Un ada, toujours
// un enseignant."). Each shipped model names the confidence below which its translations are flagged: the 2nd
// percentile of its val translations' (bench/confidence.py: 1.8-2.5% of test2016 flagged, 80-84% of Tatoeba's
// sentences).
TEST_CASE("shipped models: a translation of text unlike the captions is flagged by the model's own threshold") {
    const std::vector<std::string> everyday_en = {"Can we talk?", "Don't panic!", "Tea, please.", "I feel good.",
                                                  "Do you agree?", "Get serious.", "I love you.", "See you tomorrow!",
                                                  "How much does it cost?", "Thank you very much."};
    const std::vector<std::string> everyday_fr = {"On peut parler ?", "Pas de panique !", "Du thé, s'il te plaît.",
                                                  "Je me sens bien.", "Tu es d'accord ?", "Sois sérieux.",
                                                  "Je t'aime.", "À demain !", "Combien ça coûte ?", "Merci beaucoup."};
    const std::vector<std::string> everyday_de = {"Können wir reden?", "Keine Panik!", "Tee, bitte.",
                                                  "Ich fühle mich gut.", "Bist du einverstanden?", "Sei ernst.",
                                                  "Ich liebe dich.", "Bis morgen!", "Wie viel kostet das?",
                                                  "Vielen Dank."};
    for (const ShippedModel& shipped : caption_models()) {
        const std::string& file = shipped.file;
        CAPTURE(file);
        const Translator& translator = shipped.translator;
        REQUIRE(translator.model().min_confidence.has_value());
        const TranslationOptions options = translator.default_options();
        CHECK(options.min_confidence == *translator.model().min_confidence);
        CHECK(options.min_confidence > 0.2f);
        CHECK(options.min_confidence < 0.8f);
        // In domain: the first 200 test2016 captions, a few flagged at most (2% of val by construction).
        const std::vector<std::string> captions(shipped.test2016.begin(), shipped.test2016.begin() + 200);
        int flagged = 0;
        for (const TranslationResult& r : translator.translate_batch(captions, options)) {
            flagged += r.low_confidence;
            CHECK(r.low_confidence == (r.confidence < options.min_confidence));
        }
        CHECK(flagged <= 10);
        // Everyday speech: most of it flagged, each with its warning.
        const Lang lang = translator.model().source_pipeline.lang;
        const std::vector<std::string>& everyday =
            lang == Lang::en ? everyday_en : lang == Lang::fr ? everyday_fr : everyday_de;
        int everyday_flagged = 0;
        for (const TranslationResult& r : translator.translate_batch(everyday, options)) {
            everyday_flagged += r.low_confidence;
            if (r.low_confidence) CHECK(r.warnings.back().rfind("low confidence (", 0) == 0);
        }
        MESSAGE(file << ": " << flagged << " of 200 test2016 captions flagged, " << everyday_flagged << " of "
                     << everyday.size() << " everyday sentences");
        CHECK(everyday_flagged >= 6);
    }
}

// Markup is not for translating, and a model that reads it invents a caption around it: tags and marks are taken out,
// the rest translated, and each put back touching the words it touched (translate/asides.h).
TEST_CASE("shipped models: markup tags are taken out of the sentence and put back around the same words") {
    for (const ShippedModel& shipped : caption_models()) {
        const std::string& file = shipped.file;
        CAPTURE(file);
        const Translator& translator = shipped.translator;
        TranslationOptions options;
        options.beam_size = 1;
        options.align_markup = false;  // at the same share of the words: the first two at the start, the last at the end
        for (size_t i = 0; i < 6; i++) {
            const std::string s = shipped.caption(i);
            const std::string plain = s + ".";
            // <p><b>First two</b> words ... <a href="...">last</a>.</p>
            const size_t second_space = s.find(' ', s.find(' ') + 1), last_space = s.rfind(' ');
            REQUIRE(second_space != std::string::npos);
            REQUIRE(last_space > second_space);
            const std::string marked = "<p><b>" + s.substr(0, second_space) + "</b>" +
                                       s.substr(second_space, last_space + 1 - second_space) +
                                       "<a href=\"https://example.com/a?b=1&c=2\" title='x > y'>" +
                                       s.substr(last_space + 1) + "</a>.</p>";
            CAPTURE(marked);
            const TranslationResult r = translator.translate(marked, options);
            const TranslationResult read_as = translator.translate(plain, options);
            CHECK(r.source_tokens == read_as.source_tokens);  // the model reads the words alone
            CHECK(r.target_ids == read_as.target_ids);
            CHECK(translator.translate_batch({marked}, options)[0].text == r.text);
            CAPTURE(r.text);
            // Every tag once, in order, the first two at the start, the last two at the end, touching their words.
            REQUIRE(r.text.rfind("<p><b>", 0) == 0);
            REQUIRE(r.text.size() > 6);
            CHECK(r.text[6] != ' ');
            const std::string a = "<a href=\"https://example.com/a?b=1&c=2\" title='x > y'>";
            const size_t close_b = r.text.find("</b>"), open_a = r.text.find(a), close_a = r.text.find("</a>");
            REQUIRE(close_b != std::string::npos);
            REQUIRE(open_a != std::string::npos);
            REQUIRE(close_a != std::string::npos);
            CHECK(close_b < open_a);
            CHECK(open_a < close_a);
            CHECK(r.text[close_b - 1] != ' ');
            CHECK(r.text[open_a + a.size()] != ' ');
            CHECK(r.text.substr(close_a) == "</a>.</p>");
            std::string without = r.text;
            for (const std::string& tag : {std::string("<p>"), std::string("<b>"), std::string("</b>"), a,
                                           std::string("</a>"), std::string("</p>")})
                without.erase(without.find(tag), tag.size());
            CHECK(without == read_as.text);
        }
        // HTML in, HTML out: references are read as characters, the translation's "&" "<" ">" written as references.
        {
            const std::string s = shipped.test2016[2];
            const TranslationResult html = translator.translate("<p>" + s + " &amp; &lt;3</p>", options);
            const TranslationResult text = translator.translate(s + " & <3", options);
            CHECK(html.source_tokens == text.source_tokens);
            std::string escaped;
            for (char c : text.text) escaped += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
            CHECK(html.text == "<p>" + escaped + "</p>");
        }
        // Tags alone are left as they are; a "<" that opens no tag is text.
        for (const std::string tags : {"<br>", "<p></p>", "<!-- a comment -->"}) {
            const TranslationResult r = translator.translate(tags, options);
            CHECK(r.untranslated);
            CHECK(r.text == tags);
            CHECK(r.warnings.empty());
        }
        const std::string line_break = shipped.test2016[0];
        const size_t space = line_break.find(' ');
        CHECK(translator.translate(line_break.substr(0, space) + "<br>" + line_break.substr(space + 1), options)
                  .source_tokens == translator.translate(line_break, options).source_tokens);
        CHECK(translator.translate("a < b", options).source_tokens.size() > 3);
    }
}

// With align_markup (the default), a tag on words goes around the words of the translation that the cross attention
// aligns with them: wherever that is, the translation is the plain sentence's, every tag is there once, in order,
// a pair near the start holds a word and touches it (one at the end may find no word left: "a house" can be one
// word), and a tag around the whole sentence stays around it.
TEST_CASE("shipped models: markup goes around the words aligned with the words it marked") {
    for (const ShippedModel& shipped : caption_models()) {
        const std::string& file = shipped.file;
        CAPTURE(file);
        const Translator& translator = shipped.translator;
        TranslationOptions options;
        options.beam_size = 1;
        REQUIRE(options.align_markup);
        for (size_t i = 0; i < 8; i++) {
            const std::string s = shipped.caption(i);
            std::vector<std::string> words;
            for (size_t at = 0; at < s.size();) {
                const size_t end = std::min(s.find(' ', at), s.size());
                words.push_back(s.substr(at, end - at));
                at = end + 1;
            }
            REQUIRE(words.size() >= 5);
            // <p>w0 <b>w1 w2</b> ... **w(n-2)** <i>w(n-1)</i>.</p>
            const size_t n = words.size();
            std::string marked = "<p>";
            for (size_t k = 0; k < n; k++) {
                if (k > 0) marked += ' ';
                marked += k == 1 ? "<b>" + words[k] : k == 2 ? words[k] + "</b>" : k == n - 2 ? "**" + words[k] + "**"
                          : k == n - 1 ? "<i>" + words[k] + "</i>" : words[k];
            }
            marked += ".</p>";
            CAPTURE(marked);
            const TranslationResult r = translator.translate(marked, options);
            const TranslationResult plain = translator.translate(s + ".", options);
            CHECK(r.source_tokens == plain.source_tokens);
            CHECK(r.target_ids == plain.target_ids);
            CAPTURE(r.text);
            const std::vector<std::string> tags = {"<p>", "<b>", "</b>", "**", "**", "<i>", "</i>", "</p>"};
            std::string without = r.text;
            size_t at = 0;
            std::vector<size_t> found;  // where each tag was, in `without` as it was then
            for (const std::string& tag : tags) {
                at = without.find(tag, at);
                REQUIRE(at != std::string::npos);
                found.push_back(at);
                without.erase(at, tag.size());
            }
            CHECK(without == plain.text);
            CHECK(found.front() == 0);                          // <p> holds the sentence
            CHECK(found.back() == without.size());              // and </p> ends it, after its final punctuation
            CHECK(found[2] > found[1]);  // <b> holds a word and touches it
            CHECK(without[found[1]] != ' ');
            CHECK(without[found[2] - 1] != ' ');
            CHECK(translator.translate_batch({marked}, options)[0].text == r.text);
            TranslationOptions with_maps = options;
            with_maps.return_attention = true;  // the alignment then reads the maps the result returns
            CHECK(translator.translate(marked, with_maps).text == r.text);
        }
        // Where a number is copied through, the tokens no longer say which words they came from: the share it is.
        const std::string number = "<b>Two</b> men carry 25 boxes to the <i>truck</i>.";
        TranslationOptions share = options;
        share.align_markup = false;
        CHECK(translator.translate(number, options).text == translator.translate(number, share).text);
    }
}

// A noun in bold goes to its translation's word, on the first 60 test2016 captions with one noun of a small lexicon
// whose translation holds the noun's translation once ("Un <b>homme</b> ..." -> "A <b>man</b> ...", not "<b>A</b>
// man ..."). Which cross attention layers align words is the model file's choice (bench/markup_placement.py: 91%
// to 98% of test2016's such captions); averaging every layer put fr→en's bold on the article for a quarter of these.
TEST_CASE("shipped models: a noun in bold is in bold in the translation") {
    // man, woman, dog, boy, girl, child in en, de, fr: a word says it if it is it (a source) or starts with it (a
    // translation; English: the word or its plural)
    const std::vector<std::map<Lang, std::string>> nouns = {
        {{Lang::en, "man"}, {Lang::de, "Mann"}, {Lang::fr, "homme"}},
        {{Lang::en, "woman"}, {Lang::de, "Frau"}, {Lang::fr, "femme"}},
        {{Lang::en, "dog"}, {Lang::de, "Hund"}, {Lang::fr, "chien"}},
        {{Lang::en, "boy"}, {Lang::de, "Junge"}, {Lang::fr, "garçon"}},
        {{Lang::en, "girl"}, {Lang::de, "Mädchen"}, {Lang::fr, "fille"}},
        {{Lang::en, "child"}, {Lang::de, "Kind"}, {Lang::fr, "enfant"}},
    };
    auto words_of = [](const std::string& s) {
        std::vector<std::string> out;
        for (size_t at = 0; at <= s.size();) {
            const size_t end = std::min(s.find(' ', at), s.size());
            out.push_back(s.substr(at, end - at));
            at = end + 1;
        }
        return out;
    };
    auto letters = [](const std::string& w) {  // without punctuation around it (ASCII: the nouns start with a letter)
        size_t b = 0, e = w.size();
        while (b < e && std::ispunct(static_cast<unsigned char>(w[b]))) b++;
        while (e > b && std::ispunct(static_cast<unsigned char>(w[e - 1]))) e--;
        return w.substr(b, e - b);
    };
    auto lower_first = [](std::string w) {
        if (!w.empty()) w[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(w[0])));
        return w;
    };
    for (const ShippedModel& shipped : caption_models()) {
        const std::string& file = shipped.file;
        CAPTURE(file);
        const Translator& translator = shipped.translator;
        const Lang src = translator.model().source_pipeline.lang, tgt = translator.model().target_pipeline.lang;
        TranslationOptions options = translator.default_options();
        options.beam_size = 1;
        int known = 0, exact = 0, tried = 0;
        for (const std::string& line : shipped.test2016) {
            if (tried == 60) break;
            const std::vector<std::string> words = words_of(line);
            int at = -1, noun = -1, hits = 0;
            for (size_t k = 0; k < words.size(); k++)
                for (size_t n = 0; n < nouns.size(); n++)
                    if (lower_first(letters(words[k])) == lower_first(nouns[n].at(src))) at = int(k), noun = int(n), hits++;
            if (hits != 1 || letters(words[at]) != words[at].substr(0, letters(words[at]).size())) continue;
            tried++;
            std::string marked;
            for (size_t k = 0; k < words.size(); k++) {
                const std::string w = letters(words[k]);
                marked += (k ? " " : "") + (int(k) == at ? "<b>" + w + "</b>" + words[k].substr(w.size()) : words[k]);
            }
            const std::string plain = translator.translate(line, options).text;
            const std::vector<std::string> out = words_of(plain);
            const std::string stem = nouns[noun].at(tgt);
            std::vector<int> gold;
            for (size_t k = 0; k < out.size(); k++) {
                const std::string w = lower_first(letters(out[k]));
                if (tgt == Lang::en ? w == stem || w == stem + "s" : w.rfind(lower_first(stem), 0) == 0) gold.push_back(int(k));
            }
            if (gold.size() != 1) continue;
            known++;
            const std::string bold = translator.translate(marked, options).text;
            const std::vector<std::string> got = words_of(bold);
            CAPTURE(marked);
            CAPTURE(bold);
            REQUIRE(std::regex_replace(bold, std::regex("</?b>"), "") == plain);
            std::vector<int> opens, closes;
            for (size_t k = 0; k < got.size(); k++) {
                if (got[k].find("<b>") != std::string::npos) opens.push_back(int(k));
                if (got[k].find("</b>") != std::string::npos) closes.push_back(int(k));
            }
            exact += opens == gold && closes == gold;
        }
        CAPTURE(known);
        CAPTURE(exact);
        CHECK(known >= 40);
        CHECK(exact >= 0.9 * known);
    }
}

TEST_CASE("shipped models: Markdown marks are taken out and put back; code spans are not translated") {
    for (const ShippedModel& shipped : caption_models()) {
        const std::string& file = shipped.file;
        CAPTURE(file);
        const Translator& translator = shipped.translator;
        TranslationOptions options;
        options.beam_size = 1;
        options.align_markup = false;  // at the same share of the words: the first mark at the start
        const std::string s = shipped.caption(1);
        const TranslationResult plain = translator.translate(s + ".", options);
        const size_t second_space = s.find(' ', s.find(' ') + 1);
        REQUIRE(second_space != std::string::npos);
        // marked text -> the marks the translation must hold, in order
        const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
            {"- " + s + ".", {"- "}},
            {"## " + s + ".", {"## "}},
            {"> " + s + ".", {"> "}},
            {"**" + s.substr(0, second_space) + "**" + s.substr(second_space) + ".", {"**", "** "}},
            {"_" + s + "_.", {"_", "_."}},
            {"[" + s + "](https://example.com/a_b?c=1).", {"[", "](https://example.com/a_b?c=1)."}},
        };
        for (const auto& [marked, marks] : cases) {
            CAPTURE(marked);
            const TranslationResult r = translator.translate(marked, options);
            CHECK(r.source_tokens == plain.source_tokens);
            CAPTURE(r.text);
            std::string without = r.text;
            size_t at = 0;
            for (size_t k = 0; k < marks.size(); k++) {
                const std::string& mark = marks[k];
                const size_t found = without.find(mark, at);
                REQUIRE(found != std::string::npos);
                if (k == 0) CHECK(found == 0);  // the first mark opens the text
                // what the mark leaves of the plain translation: the space after a closing mark, the final period
                const std::string left = k > 0 && mark.back() == ' ' ? " " : mark.back() == '.' ? "." : "";
                without.replace(found, mark.size(), left);
                at = found;
            }
            CHECK(without == plain.text);
        }
        // A code span is copied, not translated: alone it is left as it is.
        const TranslationResult code = translator.translate("`x = f(1);`", options);
        CHECK(code.untranslated);
        CHECK(code.text == "`x = f(1);`");
        const TranslationResult inline_code = translator.translate(s + " `rm -rf /tmp/x`.", options);
        CHECK(inline_code.source_tokens == plain.source_tokens);
        CHECK(inline_code.text.find(" `rm -rf /tmp/x`") != std::string::npos);
        // Not marks: a product's star between spaces, an underscore inside a word.
        CHECK(translator.translate("2 * 3 " + s, options).source_tokens != translator.translate("2 3 " + s, options).source_tokens);
        std::string snake;
        for (const std::string& t : translator.translate(s + " snake_case", options).source_tokens) snake += t;
        CHECK(snake.find('_') != std::string::npos);
    }
}

// Emoji are unknown to every model, and one inside a sentence derails what follows it ("A dog 🐕 runs on the beach
// 🏖️." ended "... am Strand mit aufgesetzten Pult."): they are taken out, the rest translated, and each put back at
// the same place: at the start, before the final punctuation, or after the same share of the words.
TEST_CASE("shipped models: emoji are taken out of the sentence and put back in the translation") {
    for (const ShippedModel& shipped : caption_models()) {
        const std::string& file = shipped.file;
        CAPTURE(file);
        const Translator& translator = shipped.translator;
        TranslationOptions options;
        options.beam_size = 1;
        std::vector<std::string> plain, decorated;
        for (size_t i = 0; i < 6; i++) {
            const std::string s = shipped.caption(i);
            const std::string end = i % 2 ? "!" : ".";  // French writes "plage !": a word of its own
            plain.push_back(s + end);
            const size_t second_space = s.find(' ', s.find(' ') + 1);
            REQUIRE(second_space != std::string::npos);
            decorated.push_back("🎉 " + s.substr(0, second_space) + " 🐕" + s.substr(second_space) + " 🏖️" + end);
        }
        const std::vector<TranslationResult> batched = translator.translate_batch(decorated, options);
        for (size_t i = 0; i < plain.size(); i++) {
            CAPTURE(decorated[i]);
            const TranslationResult r = translator.translate(decorated[i], options);
            const TranslationResult read_as = translator.translate(plain[i], options);
            CHECK(r.source_tokens == read_as.source_tokens);  // no unknown token reached the model
            CHECK(r.target_ids == read_as.target_ids);
            CHECK(batched[i].text == r.text);
            CAPTURE(r.text);
            REQUIRE(r.text.rfind("🎉 ", 0) == 0);
            const size_t dog = r.text.find(" 🐕"), beach = r.text.find(" 🏖️");
            REQUIRE(dog != std::string::npos);
            REQUIRE(beach != std::string::npos);
            CHECK(dog < beach);
            CHECK(r.text.find("  ") == std::string::npos);
            CHECK(r.text.find_first_not_of(".!? ", beach + std::string(" 🏖️").size()) == std::string::npos);
            std::string without = r.text.substr(std::string("🎉 ").size());
            for (const std::string piece : {" 🐕", " 🏖️"}) without.erase(without.find(piece), piece.size());
            CHECK(without == read_as.text);
        }
    }
}

// Translator::ensemble: the search reads the mean of the members' log-probabilities. A model with itself is the
// model alone (the same tokens; scores equal up to the rounding of a second log-softmax), and models that read or
// write differently are refused before any translation.
TEST_CASE("shipped models: an ensemble of a model with itself translates as the model alone") {
    const std::string file = models_dir() + "/multi30k-en-de-cased.safetensors";
    const Translator alone = Translator::from_bytes(read_bytes(file), file);
    std::vector<TranslatorModel> twice;
    for (int k = 0; k < 2; k++) twice.push_back(load_translator_model_bytes(read_bytes(file), file));
    const Translator ensemble = Translator::ensemble(std::move(twice));
    CHECK(ensemble.ensemble_size() == 2);
    CHECK(ensemble.max_source_tokens() == alone.max_source_tokens());
    const std::vector<std::string> lines = read_lines(
        multi30k_path(default_data_dir(), "test_2016_flickr", Lang::en, TextForm::raw));
    const TranslationOptions options = alone.default_options();
    for (size_t i = 0; i < 10; i++) {
        CAPTURE(lines[i]);
        const TranslationResult a = alone.translate(lines[i], options), e = ensemble.translate(lines[i], options);
        CHECK(e.target_ids == a.target_ids);
        CHECK(e.text == a.text);
        CHECK(e.score == doctest::Approx(a.score).epsilon(1e-5));
    }
    // greedy batches go one sentence at a time in an ensemble: the same tokens
    TranslationOptions greedy = options;
    greedy.beam_size = 1;
    const std::vector<std::string> some(lines.begin(), lines.begin() + 8);
    const std::vector<TranslationResult> batch = ensemble.translate_batch(some, greedy);
    for (size_t i = 0; i < some.size(); i++) CHECK(batch[i].target_ids == alone.translate(some[i], greedy).target_ids);

    std::vector<TranslatorModel> mixed;
    mixed.push_back(load_translator_model_bytes(read_bytes(file), file));
    const std::string fr = models_dir() + "/multi30k-en-fr-cased.safetensors";
    mixed.push_back(load_translator_model_bytes(read_bytes(fr), fr));
    CHECK_THROWS_WITH_AS(Translator::ensemble(std::move(mixed)),
                         "model 2 of the ensemble differs from model 1 in its source pipeline: the models of an "
                         "ensemble must read and write alike",
                         Error);
    CHECK_THROWS_WITH_AS(Translator::ensemble({}), "an ensemble needs at least one model", Error);
}

TEST_CASE("shipped models: a byte-order mark, a zero-width space or a NUL is not text: the translation is the text's") {
    for (const ShippedModel& shipped : caption_models()) {
        CAPTURE(shipped.file);
        for (size_t i = 0; i < 5; i++) {
            const std::string s = shipped.test2016.at(i);
            CAPTURE(s);
            const std::string plain = shipped.translator.translate(s).text;
            CHECK(shipped.translator.translate("\xEF\xBB\xBF" + s).text == plain);
            const size_t space = s.find(' ');
            REQUIRE(space != std::string::npos);
            std::string with_nul = s;
            with_nul.insert(space, std::string(1, '\0'));  // "A man\0 walks ...": nothing after the NUL is lost
            CHECK(shipped.translator.translate(with_nul).text == plain);
            std::string with_zwsp = s;
            with_zwsp.insert(1, "\xE2\x80\x8B");  // inside the first word
            CHECK(shipped.translator.translate(with_zwsp).text == plain);
        }
    }
}

// Seed 003 teaches attention with 我喜欢吃鱼 ("I like eating fish"), a sentence no line of eng-cmn holds. The shipped
// zh→en model says it likes fish, and its cross attention puts "fish" on 鱼: in its last layer (the mean of its
// heads) and in the mean of every layer and head, which is what the page draws first.
TEST_CASE("tatoeba-zh-en: 我喜欢吃鱼 is about liking fish, and \"fish\" attends most to 鱼") {
    const std::string sentence = "我喜欢吃鱼";
    for (const std::string& line : read_lines(default_data_dir() + "/tatoeba/eng-cmn.tsv.gz"))
        REQUIRE_MESSAGE(line.find(sentence) == std::string::npos, "the training data holds it: " << line);
    const Translator translator =
        Translator::from_bytes(read_bytes(models_dir() + "/tatoeba-zh-en.safetensors"), "tatoeba-zh-en.safetensors");
    for (int beam : {1, 5}) {
        CAPTURE(beam);
        TranslationOptions options = translator.default_options();
        options.beam_size = beam;
        options.return_attention = true;
        const TranslationResult r = translator.translate(sentence, options);
        CAPTURE(r.text);
        CHECK(r.text.find("like") != std::string::npos);
        CHECK(r.text.find("fish") != std::string::npos);
        const auto fish = std::find_if(r.target_tokens.begin(), r.target_tokens.end(),
                                       [](const std::string& t) { return t.find("fish") != std::string::npos; });
        REQUIRE(fish != r.target_tokens.end());
        const int row = static_cast<int>(fish - r.target_tokens.begin());
        const AttentionMaps& a = r.cross;
        REQUIRE(a.rows == static_cast<int>(r.target_tokens.size()));
        REQUIRE(a.cols == static_cast<int>(r.source_tokens.size()));
        auto strongest = [&](int first_layer) {  // the source token of the largest mean weight over the layers from it
            std::vector<double> mean(a.cols, 0.0);
            for (int l = first_layer; l < a.layers; l++)
                for (int h = 0; h < a.heads; h++)
                    for (int c = 0; c < a.cols; c++) mean[c] += a.data[((size_t(l) * a.heads + h) * a.rows + row) * a.cols + c];
            return r.source_tokens.at(std::max_element(mean.begin(), mean.end()) - mean.begin());
        };
        CHECK(strongest(a.layers - 1) == "鱼");
        CHECK(strongest(0) == "鱼");
    }
}
