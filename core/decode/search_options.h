// Options and results of greedy and beam search (CTranslate2's TranslationOptions, minus what belongs to the
// translator: tokenization and attention capture).
//
// SearchOptions shares field names with TranslationOptions (include/attend/translation.h) but is the level below
// it: token ids, an absolute max_length, and neutral defaults (greedy, no length penalty, no repetition controls)
// so that a search asked for nothing does the plain d2l search that training's validation and the search tests
// rely on. TranslationOptions holds what a user asks for and its defaults; Translator::search_options turns one
// into the other per sentence (max_length from the model's limit and the source length).
#pragma once
#include <string>
#include <vector>

namespace attend {

struct SearchOptions {
    int beam_size = 1;            // 1: greedy
    float length_penalty = 0.0f;  // alpha in score / L^alpha (d2l); 0: plain sum of log-probabilities
    int max_length = 256;         // generated tokens, <eos> included
    int bos_id = 2;
    int eos_id = 3;
    // Repetition controls, as in CTranslate2 (both act on the logits before the softmax, so a hypothesis' log_prob
    // is summed over the distributions they leave):
    // a token that would complete an n-gram already generated is forbidden (0: off; 1 forbids every repeated token);
    int no_repeat_ngram_size = 0;
    // the logit of every token generated before is divided by this (multiplied when negative; CTRL's penalty,
    // https://arxiv.org/abs/1909.05858); 1: off, > 1 discourages repeats.
    float repetition_penalty = 1.0f;
    // No token more than this many times in a row (0: off): the loop no_repeat_ngram_size n still allows n times.
    int max_token_run = 0;
    // No phrase of 2 to this many tokens right after itself ("in midair in midair", "blue , blue ,"; 0 and 1: off),
    // unless source_ids holds that phrase twice in a row. The stutter a small model falls into is shorter than the
    // n-gram that no_repeat_ngram_size forbids, and adjacent.
    int no_adjacent_repeat_size = 0;
    // No piece inside a word (a BPE continuation such as "ter@@": TokenShape::joins_next) more than this many times
    // in a row (0: off), unless source_ids holds it once more than that in a row: "Lot@@ ter@@ ter@@ ter@@ ielt",
    // which max_token_run lets through and no word of the training text needs. Requires token_shapes.
    int max_piece_run = 0;
    // The source's tokens as target ids (-1 where the target vocabulary lacks one), for the exemptions above.
    std::vector<int> source_ids;
    // A token that would make one character repeat more than max_char_run times in a row in the output text is
    // forbidden (0: off), except for the characters in char_run_exempt (those the source itself repeats so).
    // token_shapes [V] describes each token's text; it is required when max_char_run > 0.
    int max_char_run = 0;
    const std::vector<struct TokenShape>* token_shapes = nullptr;
    std::u32string char_run_exempt;
    // Numbers written in digits come from the source: a token is forbidden where its ASCII digits would end a run of
    // digits in the output that is not one of source_numbers, or leave open for the next token one that can become none
    // of them (a part of one; a whole one only where the source glues on to it too, as in "1950s"), and a run left open
    // that is no such whole number goes on with digits (<eos> only where the other controls leave no digit; the length
    // limit may cut it too). So a model cannot invent "5550" for "5 pm"; it may still write a number in words, or leave
    // it out. Digits inside a token between other characters ("a5b", which a vocabulary that splits digits never has)
    // are not checked. Requires token_shapes.
    bool numbers_from_source = false;
    std::vector<struct NumberRun> source_numbers;  // digit_runs() of the source tokens
    // The target vocabulary is SentencePiece's: a piece that begins with "▁" begins a word and every other piece
    // glues on to the one before (BPE marks the opposite end: "piece@@" glues on to the next). The number rule then
    // reads a run of digits as ended by whatever does not go on with digits (a word, a mark, a Chinese character,
    // <eos>), which must leave a whole number of the source.
    bool word_start_pieces = false;
    // Beam search (only: greedy search cannot look ahead) prefers a translation that closes the quotation marks
    // (close_quotes: an even number of '"') and round brackets (close_brackets: each ')' after its '(') it opens:
    // "ein Stofftier mit der Aufschrift „." reads as broken. A hypothesis that ends with one open is set aside
    // instead of counting among the beam_size finished ones, and ranks below every finished one that closes its
    // marks, so the search goes on to find those where the best that had finished left one open: at most
    // close_steps steps past where it would have stopped, as closing a mark takes a token or two. Those it finds in
    // that time come first; where it finds none, the result is what the search without the preference gives, and
    // where the best closed its marks, it is that. (Forbidding <eos> while a mark is open would make a search
    // that cannot close it ramble on to max_length, and going on longer lets a long-winded hypothesis win under a
    // large length penalty.) The translator asks for each only where the source's own marks pair up
    // (marks_pair_up). Requires token_shapes.
    bool close_quotes = false;
    bool close_brackets = false;
    int close_steps = 4;
    // Tokens the output begins with (after <bos>; CTranslate2's target_prefix): each is taken in turn whatever the
    // model prefers, scored by the distribution the search would have chosen from (the model's own where the
    // repetition controls forbid it), and the search goes on from the last one as it would from tokens it had chosen
    // (the controls count them as generated). Fewer than max_length tokens, none of them eos_id.
    std::vector<int> prefix;
    // For every output token, keep this many of the most probable tokens of the distribution it was chosen from (or
    // forced into), the way the search saw it: after the repetition controls (Hypothesis::alternative_ids). 0: none.
    int alternatives = 0;
};

// A run of ASCII digits in a text, and whether the text glues something other than digits on to its end.
struct NumberRun {
    std::string digits;
    bool glued = false;
};

// What the character-run limit and the number rule need to know of a token's text: its first and last code points
// and how often each repeats at that end, whether the token is one character throughout, whether the next token is
// glued on (a BPE continuation "piece@@": no space in between), and the ASCII digits it begins and ends with.
// Special tokens have no text (first = last = 0, no digits) and end a run.
struct TokenShape {
    char32_t first = 0, last = 0;
    int lead = 0, trail = 0;
    bool uniform = false, joins_next = false;
    std::string head_digits, tail_digits;  // "12" and "3" for "12ab3"; both the whole text for "123"
    bool digits_only = false;
    bool starts_word = false;  // SentencePiece's "▁" first; the digits above are those after it
    // The '"' marks (Moses' escape &quot; too), '(' and ')' in its text.
    int quotes = 0, opens = 0, closes = 0;
};

// The shape of a token's text; "@@" at its end marks a BPE continuation, "▁" at its start a SentencePiece word.
TokenShape token_shape(const std::string& token);

// Whether the quotation marks of a tokenized text (tokens as token_shape reads them) come in pairs, and whether its
// round brackets close in order, each opened before it is closed and none left open.
struct MarkPairs {
    bool quotes = true, brackets = true;
};
MarkPairs marks_pair_up(const std::vector<std::string>& tokens);
// The same of token ids, each read by its shape (shapes [V]; an id outside them has no marks).
MarkPairs marks_pair_up(const std::vector<int>& tokens, const std::vector<TokenShape>& shapes);

// The runs of ASCII digits in the text that BPE tokens spell ("1@@ 5@@ h@@ 30 m" -> 15 glued, 30), each once (glued
// where any of its places is), in order; not the code of a character reference ("&#@@ 9@@ 1@@ ;", Moses' "[").
// (The number rule then keeps a model from writing such a reference, which no vocabulary here can spell anyway.)
// word_start_pieces: SentencePiece pieces, which spell the text with "▁" for each space ("▁born ▁19 90" -> 1990).
std::vector<NumberRun> digit_runs(const std::vector<std::string>& tokens, bool word_start_pieces = false);

struct Hypothesis {
    std::vector<int> tokens;  // generated tokens without <bos>; ends with <eos> unless max_length cut it
    float log_prob = 0.0f;    // sum of the tokens' log-probabilities
    float score = 0.0f;       // log_prob / L^alpha, what the beam ranks finished hypotheses by
    bool finished = false;    // ended with <eos>
    // With SearchOptions::alternatives k > 0: the probability of each token in the distribution it came from
    // ([tokens]), and that distribution's k most probable tokens and their probabilities ([tokens, k], most probable
    // first; id -1 and probability 0 past the tokens the distribution allows).
    std::vector<float> token_probs;
    std::vector<int> alternative_ids;
    std::vector<float> alternative_probs;
};

// Throws attend::Error unless options.prefix fits a search over a vocabulary of V tokens: ids in [0, V), not
// eos_id, fewer than max_length of them; and 0 <= alternatives.
void check_prefix(const SearchOptions& options, int V);

// Appends to h a token's probability exp(token_log_prob) and the k most probable tokens of its distribution, the
// row [V] (k <= V): log-probabilities, or (log_probs false) logits, as greedy search has them, whose order is then
// argmax's (ties to the lower id) and whose probabilities are their log-softmax, bit for bit.
void append_alternatives(Hypothesis& h, const float* row, int V, int k, float token_log_prob, bool log_probs);

// Length-normalized score of a hypothesis of `length` generated tokens.
float normalized_score(float log_prob, int length, float length_penalty);

}  // namespace attend
