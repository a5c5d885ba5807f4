// Which source words a translation may have left out, by contrastive conditioning (Vamvas & Sennrich, "As Little
// as Possible, as Much as Necessary", 2022): the model scores its own translation once with the whole source and
// once without each source word. A word the translation renders makes the translation more likely; a word it left
// out does not, and without it the translation (which never said it) reads as the more likely one. The gain of a
// word is log P(translation | source without it) - log P(translation | source), in nats; a word whose gain is above
// a threshold chosen on validation data is named as possibly left out. It needs only the model that translated,
// and catches what the confidence cannot: a fluent, confident translation of part of the sentence ("Der Hund
// rennt." for "The man's dog is running.").
#pragma once
#include "text/text_pipeline.h"
#include "translate/translator_network.h"

#include <string>
#include <vector>

namespace attend {

// log P(target | source) for each of `sources` (ids with <eos>, each 1..network.max_source_tokens() long), by
// teacher forcing: target is the translation's ids (<eos> last when it finished), read after <bos>. One batch of
// every source where the network decodes batches, else one source at a time.
std::vector<double> translation_log_probs(const TranslatorNetwork& network,
                                          const std::vector<std::vector<int>>& sources, const std::vector<int>& target,
                                          int bos_id);

// The words of source tokens (model pieces, <eos> last): the token index each word begins at, and after the last
// word the index of <eos>. A BPE piece ending in "@@" goes on into the next; a SentencePiece piece beginning with
// U+2581 begins a word, and so does one beginning with a Han or kana character (Chinese and Japanese write no
// spaces); a word-level token is a word.
std::vector<int> source_word_starts(const std::vector<std::string>& source_tokens, const TextPipeline& pipeline);

// The gain (SourceWordGain, attend/translation.h) of every source word with a letter or digit (punctuation alone
// is not checked: a translation rightly moves and drops it), in source order. src: the ids of source_tokens;
// target as translation_log_probs takes it. Empty for a source of one word.
std::vector<SourceWordGain> source_word_gains(const TranslatorNetwork& network,
                                              const std::vector<std::string>& source_tokens,
                                              const std::vector<int>& src, const std::vector<int>& target, int bos_id,
                                              const TextPipeline& source_pipeline);

}  // namespace attend
