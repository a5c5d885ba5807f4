// The options and results of a translation: what Attend's public API (attend/translator.h), the CLI and the
// WebAssembly module share. Standard library types only.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace attend {

// validate_options() accepts each field within these bounds (and translate() calls it).
constexpr int kMaxBeamSize = 64;
constexpr int kMaxDecodingLength = 4096;
constexpr int kMaxBatchSize = 1024;
constexpr int kMaxNoRepeatNgramSize = 64;
constexpr int kMaxRunLength = 1000;        // max_token_run, max_char_run
constexpr float kMaxLengthRatio = 1000.0f;
constexpr int kMaxClauseSplitWords = 100000;
constexpr int kMaxAlternatives = 100;     // alternatives (per target token)
constexpr float kMaxOmissionGain = 1000.0f;

struct TranslationOptions {
    int beam_size = 5;             // 1: greedy; 1..kMaxBeamSize
    // alpha in log P / L^alpha; finite. A model file may name its own (Translator::default_options).
    float length_penalty = 0.6f;
    // The most tokens to generate, <eos> included (CTranslate2's max_decoding_length), 0..kMaxDecodingLength;
    // 0: the model's limit. Never more than the model's limit, nor than max_length_ratio allows.
    int max_length = 0;
    // The most source tokens translated, <eos> included (CTranslate2's max_input_length): 0 (the model's limit) or
    // 2..kMaxDecodingLength, never more than the model's limit. A longer text is cut to it, with a warning.
    int max_input_length = 0;
    // At most ceil(max_length_ratio * source tokens) + 10 tokens are generated (source tokens with <eos>), so that a
    // model caught in a loop stops soon; 0: no limit relative to the source. Finite, >= 0.
    float max_length_ratio = 2.0f;  // 0..kMaxLengthRatio
    // Repetition controls (SearchOptions; CTranslate2's semantics): 0..kMaxNoRepeatNgramSize, and finite > 0.
    // The defaults end the loops a small model falls into on text unlike its training data ("sssss", "été été
    // été", "0000000") without costing the shipped models' translations of ordinary text (docs/decoding.md has the
    // measurements). Size 4, not 3: captions rightly repeat 3-grams ("ein Mann in"). The repetition penalty is off:
    // it pushes away every token written before, the words a sentence rightly uses again too.
    int no_repeat_ngram_size = 4;
    float repetition_penalty = 1.0f;
    // No token more than this many times in a row (0: off; 0..kMaxRunLength).
    int max_token_run = 3;
    // No piece inside a word (a BPE piece the next one continues, "ter@@") more than this many times in a row,
    // unless the source has it so once more (0: off; 0..kMaxRunLength). Small models stutter inside a word
    // ("Lotterterterielt", "bibibibelots") far more often than real text does (docs/decoding.md).
    int max_piece_run = 2;
    // No phrase of 2 to this many tokens right after itself ("in midair in midair", "blue, blue,"), unless the
    // source has it twice in a row ("Hand in Hand in"); 0 and 1: off; 0..kMaxNoRepeatNgramSize. Such a stutter of
    // whole words is a decoding failure far more often than it is what the text says (docs/decoding.md).
    int no_adjacent_repeat_size = 8;
    // No character more than this many times in a row in the output, unless the source has such a run of it
    // (0: off; 0..kMaxRunLength). Stops loops of short BPE pieces ("0@@ 0@@ 0@@") that the rules above let through.
    int max_char_run = 4;
    // Beam search prefers a translation that closes the quotation marks and round brackets it opens (and closes none
    // it did not open), where the source's own marks pair up (SearchOptions::close_quotes, close_brackets; greedy
    // search cannot look ahead). A mark left open ("... mit der Aufschrift „.") is a translation cut short, which
    // the references never are (docs/decoding.md).
    bool close_marks = true;
    // URLs, e-mail addresses, numbers, and (cased models, English or French source) names inside a sentence are
    // copied into the translation unchanged (translate/copy_through.h), and the model may write in digits only the
    // source's numbers (SearchOptions::numbers_from_source).
    // (Emoji are always taken out of the source and put back into the translation at the same place.)
    bool copy_through = true;
    // Markup tags and marks that open or close on a word ("<b>dog</b>", "**dog**") go around the words of the
    // translation that the model's cross attention aligns with that word (one more decoder pass, for a text with
    // markup only); false: at the same share of the words, as pictographs always do.
    bool align_markup = true;
    // A sentence written in capitals (case_mapping.h: in_capitals) is translated in sentence case, which is what a
    // model trained on ordinary text can read, and its translation (text) put in capitals. The tokenized text and
    // the tokens stay what the model read and wrote.
    bool recase_capitals = true;
    // translate_document (and `attend translate`, a line at a time) translates a sentence of more than this many
    // words clause by clause (text/sentence_splitter.h: split_clauses), each clause an entry of its own; 0: never.
    // 24: the 99th percentile of Multi30K's English training captions is 23 words.
    int clause_split_words = 24;  // 0..kMaxClauseSplitWords
    // A translation whose confidence (TranslationResult::confidence) is below this gets a warning and
    // low_confidence: the text is likely unlike what the model was trained on, and the translation invented. 0..1;
    // 0: never. A model file may name its own (Translator::default_options), chosen on validation data.
    float min_confidence = 0.0f;
    // A source word the translation may have left out is named in TranslationResult::omitted_words, with a
    // warning: one without which the model finds its own translation more likely by more than this many nats
    // (translate/omissions.h: contrastive conditioning). 0..1000; 0: never checked (the check scores the
    // translation once per source word). The shipped models' values are chosen on validation data (models.json).
    float omission_gain = 0.0f;
    bool return_attention = false;
    // TranslationResult::neurons: the query and key vectors of every dot-product attention (a Transformer's), from
    // the teacher-forced pass that also gives the attention maps. Off by default: it costs that pass and the copies.
    bool return_neurons = false;
    // The translation begins with these tokens of the model's target vocabulary (pieces as TranslationResult::
    // alternatives name them: "Groß@@" goes on into a longer word), and the search (greedy or beam, as the other
    // options say) goes on from there: a user who keeps the first words of a translation and picks another for the
    // next asks for the rest anew. Each token valid UTF-8, at most kMaxDecodingLength - 1 of them; the translator
    // refuses a token its vocabulary lacks, <eos>, and a prefix as long as the length limit. Every
    // sentence of translate_batch begins with it, and the first of translate_document.
    std::vector<std::string> target_prefix;
    // For each target token, the this many most probable tokens of the distribution the search took it from
    // (TranslationResult::alternatives); 0: none; 0..kMaxAlternatives.
    int alternatives = 0;
    // translate_batch: sentences of similar length decoded together (greedy search of a Transformer without
    // attention maps; anything else goes one sentence at a time). 1: one at a time; 1..kMaxBatchSize.
    int max_batch_size = 32;
};

// Throws attend::Error naming the first option out of its range (and the range).
void validate_options(const TranslationOptions& options);

// One position of a translation (TranslationOptions::alternatives): the token written there and the most
// probable tokens of the distribution it came from, the way the search saw it (after the repetition controls; for a
// forced prefix token, the distribution the search would have chosen from). Greedy search writes the first of them.
struct TokenAlternatives {
    std::string token;        // of the target vocabulary (TranslationResult::target_ids), as the model wrote it
    float probability = 0.0f; // its probability there, in [0, 1] (a forced token may have had 0)
    // The most probable tokens, most probable first: no more than the distribution allows (probability > 0).
    std::vector<std::string> tokens;
    std::vector<int> ids;
    std::vector<float> probabilities;
};

// A source word and how much more likely the model finds the translation without it (TranslationOptions::
// omission_gain): log P(translation | source without the word) - log P(translation | source), in nats. Below 0 for
// a word the translation renders; near or above 0 for one it may have left out.
struct SourceWordGain {
    std::string word;  // as the source pipeline displays it ("'s", not "&apos;s")
    float gain = 0.0f;
};

// Attention weights of one kind for every layer and head: data [layers, heads, rows, cols].
struct AttentionMaps {
    int layers = 0, heads = 0, rows = 0, cols = 0;
    std::vector<float> data;
};

// The query and key vectors of one kind of dot-product attention, every layer and head: the projections as the
// attention reads them, split into heads. In layer l, head h, the weight of key j for query i is the softmax over
// the keys query i may see (every key for encoder self and cross attention, keys 0..i for decoder self attention)
// of q[l,h,i] . k[l,h,j] / sqrt(dim): the attention map's cell (l, h, i, j).
struct QueryKeyVectors {
    int layers = 0, heads = 0, queries = 0, keys = 0, dim = 0;
    std::vector<float> q;  // [layers, heads, queries, dim]
    std::vector<float> k;  // [layers, heads, keys, dim]
};

// What bertviz's neuron view shows, for each kind of attention; the queries and keys are the rows and columns of
// the attention maps of the same kind.
struct AttentionNeurons {
    QueryKeyVectors encoder_self, decoder_self, cross;
};

struct TranslationResult {
    std::string text;                          // detokenized, for display
    std::string tokenized;                     // tokenized words in the model's case (BPE undone): what BLEU scores
    std::vector<std::string> source_tokens;    // model tokens of the source, <eos> last
    std::vector<std::string> target_tokens;    // model tokens generated, <eos> last when finished
    std::vector<int> target_ids;
    float log_prob = 0.0f, score = 0.0f;
    bool finished = true;                      // false: cut by max_length
    // true: the source was left as it is (text and tokenized; no target tokens), as a model would only invent a
    // sentence: it has no letters (digits, punctuation, symbols), or, with a warning, most of its tokens are
    // unknown to the model (another script, emoji).
    bool untranslated = false;
    // exp(log_prob / target tokens): the geometric mean of the probabilities the model gave the tokens it wrote
    // (<eos> included), in (0, 1]; 0 when nothing was translated.
    float confidence = 0.0f;
    bool low_confidence = false;  // confidence below options.min_confidence (with a warning)
    // With options.omission_gain > 0: each source word with a letter or digit and its gain, in source order, and
    // the words whose gain is above options.omission_gain (then with a warning naming them): what the translation
    // may have left out.
    std::vector<SourceWordGain> source_word_gains;
    std::vector<std::string> omitted_words;
    // What the caller should know about this translation (the source was truncated to the model's limit, the
    // output was cut by the length limit, its confidence is low), one sentence each.
    std::vector<std::string> warnings;
    // Rows and columns: cross = target x source, encoder_self = source x source, decoder_self = target x target.
    // A Bahdanau model has cross only (1 layer x 1 head: the additive attention weights of each decoder step);
    // its encoder_self and decoder_self stay empty (0 layers).
    // Target row i is the position that predicted target_tokens[i] (its input is <bos> or target_tokens[i-1]).
    AttentionMaps cross, encoder_self, decoder_self;
    // With TranslationOptions::return_neurons, a Transformer's; a Bahdanau model's additive attention has no query
    // and key vectors (all three stay empty, 0 layers).
    AttentionNeurons neurons;
    // [target tokens] with TranslationOptions::alternatives > 0 (empty when untranslated).
    std::vector<TokenAlternatives> alternatives;
    double preprocess_ms = 0, search_ms = 0, attention_ms = 0;
};

// One sentence of a document (or one clause of a long sentence: TranslationOptions::clause_split_words): where it is
// in the input and its translation.
struct DocumentSentence {
    std::size_t begin = 0, end = 0;                // bytes of the input: [begin, end)
    std::size_t utf16_begin = 0, utf16_end = 0;    // the same span in UTF-16 code units (JavaScript string indices)
    int line = 0;                                  // 0-based input line
    TranslationResult result;                      // empty text when the sentence was skipped (see its warnings)
    // Its place in DocumentTranslation::text: what comes before it on its line (nothing first, a space after another
    // sentence, "; " or ", und " after the clause before it), and its translation as it reads there (a clause joined
    // to the next without its final mark, one joined to the one before starting in lower case where the target
    // language writes it so): translate/clause_join.h.
    std::string joiner, placed_text;
};

struct DocumentTranslation {
    // The translations: a line's sentences one after another (joiner + placed_text), lines (and empty lines) kept.
    std::string text;
    std::vector<DocumentSentence> sentences;
    // Every sentence's warnings, each prefixed with where it is ("line 2, sentence 1: ...").
    std::vector<std::string> warnings;
};

}  // namespace attend
