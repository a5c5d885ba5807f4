// libFuzzer harness: any bytes as raw user text through a tiny pipeline of each kind (Moses + BPE for en, de
// and fr, the seeds' d2l words, and raw-text subwords: SentencePiece unigram and BPE with byte fallback, where
// the pieces must also spell the cleaned text back exactly), and the tokens back to display and BLEU text; the same text through what the
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
#include <cstdio>
#include <memory>
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

// A small piece table of each algorithm: the four specials, the 256 byte pieces, a few pieces of two scripts.
TextPipeline subwords(SentencePieceModel::Algorithm algorithm) {
    using Piece = SentencePieceModel::Piece;
    using Type = SentencePieceModel::PieceType;
    std::vector<Piece> pieces = {{"<unk>", 0, Type::unknown}, {"<pad>", 0, Type::control},
                                 {"<bos>", 0, Type::control}, {"<eos>", 0, Type::control}};
    char hex[8];
    for (int b = 0; b < 256; b++) {
        std::snprintf(hex, sizeof hex, "<0x%02X>", b);
        pieces.push_back({hex, 0, Type::byte});
    }
    float score = -1;
    for (const char* p : {"\u2581", "\u2581a", "a", "n", "\u2581an", "\u2581man", "m", "e", "\u2581the", "t", "h",
                          "\u6211", "\u559C", "\u6B22", "\u559C\u6B22", "\u5403", "\u9C7C", ".", "\u3002"})
        pieces.push_back({p, score -= 0.5f, Type::normal});
    SentencePieceModel::Options options;
    options.algorithm = algorithm;
    return sentencepiece_pipeline(algorithm == SentencePieceModel::Algorithm::bpe ? "en" : "zh",
                                  std::make_shared<const SentencePieceModel>(options, pieces));
}

const std::vector<TextPipeline>& pipelines() {
    static const std::vector<TextPipeline> all = {moses_bpe(Lang::en),
                                                  moses_bpe(Lang::de),
                                                  moses_bpe(Lang::fr),
                                                  d2l_words_pipeline(Lang::en),
                                                  d2l_words_pipeline(Lang::fr),
                                                  subwords(SentencePieceModel::Algorithm::unigram),
                                                  subwords(SentencePieceModel::Algorithm::bpe)};
    return all;
}

// What the pieces spell: the cleaned text with its spaces made single and trimmed (SentencePiece's own rules).
std::string spelled(std::string_view raw) {
    const std::string clean = subword_text(raw);
    std::string out;
    for (char c : clean) {
        if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
        out += c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
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
    // Subwords lose nothing: decode(encode(x)) is x as cleaned, unless it holds U+2581 itself (SentencePiece reads
    // that as a space, and at the start of a line drops it).
    if (pipeline.type == TextPipelineType::sentencepiece && raw.find("\xE2\x96\x81") == std::string_view::npos &&
        postprocess_for_display(tokens, pipeline) != spelled(raw))
        std::abort();
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
