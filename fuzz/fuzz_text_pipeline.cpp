// libFuzzer harness: any bytes as raw user text through a tiny pipeline of each kind (Moses + BPE for en, de
// and fr, and the seeds' d2l words), and the tokens back to display and BLEU text; the same text through what the
// translator does before and after: sentences and clauses, markup and pictographs taken out and put back.
// Contract under test (text/text_pipeline.h, text/sentence_splitter.h, translate/asides.h): raw text is
// tokenized, or refused with attend::Error (invalid UTF-8); the tokens detokenize without error; sentence and
// clause spans lie in order inside the text; their translations joined again are valid text, a failed one taking
// no place; every aside taken out is put back, by any word alignment or none; everything produced is valid UTF-8.
#include "error.h"
#include "text/sentence_splitter.h"
#include "text/text_pipeline.h"
#include "text/utf8.h"
#include "translate/asides.h"
#include "translate/clause_join.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace attend;

TextPipeline moses_bpe(Lang lang) {
    TextPipeline p;
    p.type = TextPipelineType::moses_bpe;
    p.lang = lang;
    // A few prefixes of each kind, as tokenizer.perl's files mark them.
    p.prefixes = NonbreakingPrefixes::parse("Mr\nDr\nz.B\nSt\n# a comment\nNo #NUMERIC_ONLY#\nArt #NUMERIC_ONLY#\n");
    p.bpe = Bpe::learn(count_words({"a man rides a bike .", "ein mann fährt fahrrad .", "un homme à vélo ."}), 20, 1);
    return p;
}

const std::vector<TextPipeline>& pipelines() {
    static const std::vector<TextPipeline> all = {moses_bpe(Lang::en), moses_bpe(Lang::de), moses_bpe(Lang::fr),
                                                  d2l_words_pipeline(Lang::en), d2l_words_pipeline(Lang::fr)};
    return all;
}

void require_utf8(const std::string& text) {
    if (utf8_find_invalid(text) != std::string_view::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const TextPipeline& pipeline = pipelines()[data[0] % pipelines().size()];
    const std::string_view raw(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::vector<std::string> tokens;
    try {
        tokens = preprocess_for_model(raw, pipeline);
    } catch (const Error&) {
        if (utf8_find_invalid(raw) == std::string_view::npos) std::abort();  // valid text must be accepted
        return 0;
    }
    for (const std::string& t : tokens) {
        require_utf8(t);
        if (t.empty()) std::abort();
    }
    require_utf8(postprocess_for_display(tokens, pipeline));
    require_utf8(postprocess_for_bleu(tokens, pipeline));

    size_t after = 0;  // the end of the last span
    std::vector<Clause> segments;
    std::vector<std::string> translations;  // the clauses as read, every other one failed
    for (const SentenceSpan& sentence : split_sentences(raw, pipeline.prefixes))
        for (Clause& clause : split_clauses(raw, sentence, pipeline.lang, data[0] % 8)) {
            if (clause.span.begin < after || clause.span.begin > clause.span.end || clause.span.end > raw.size())
                std::abort();
            after = clause.span.end;
            require_utf8(clause.text);
            translations.push_back(segments.size() % 2 && data[0] & 8 ? "" : clause.text);
            segments.push_back(std::move(clause));
        }
    for (const bool tokenized : {false, true}) {
        const std::vector<PlacedTranslation> placed =
            place_translations(raw, segments, translations, pipeline.lang, tokenized);
        for (size_t i = 0; i < placed.size(); i++) {
            require_utf8(placed[i].joiner + placed[i].text);
            if (translations[i].empty() && !(placed[i].joiner.empty() && placed[i].text.empty())) std::abort();
        }
    }
    require_utf8(lower_clause_start(postprocess_for_display(tokens, pipeline), pipeline.lang, raw));

    const TakenOut out = take_out_asides(utf8_decode(raw));
    const std::string kept = utf8_encode(out.kept);
    // Any alignment, even one out of range, one of the wrong length or none: every aside comes back, in order.
    WordAlignment alignment;
    for (int k = 0; k < out.words + (data[0] & 1); k++) {
        const uint8_t b = data[(k + 1) % size];
        alignment.first.push_back(static_cast<int>(b % 16) - 2);
        alignment.last.push_back(static_cast<int>(b / 16) - 2);
    }
    for (const WordAlignment* a : std::array<const WordAlignment*, 2>{nullptr, &alignment}) {
        const std::string back = put_back_asides(kept, out.asides, out.words, out.html, a);
        require_utf8(back);
        size_t at = 0;  // each aside, in order, in what comes back
        for (const Aside& aside : out.asides) {
            if (aside.text.empty() || aside.words_before < 0 || aside.words_before > out.words) std::abort();
            if ((aside.opens || aside.closes) && (aside.word < -1 || aside.word >= out.words)) std::abort();
            at = back.find(aside.text, at);
            if (at == std::string::npos) std::abort();
            at += aside.text.size();
        }
    }
    return 0;
}
