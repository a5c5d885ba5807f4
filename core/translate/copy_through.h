// Copy-through of what a translation model must not translate: URLs, e-mail addresses and numbers. Models trained
// on image captions garble them ("It costs 25 dollars." -> "... 20ern ..."), so each such span is replaced, before
// translation, by a common noun the model translates reliably (a placeholder: "dog" for en, "Hund" for de, ...),
// and the noun's translation in the output is replaced by the span itself. Where the model dropped the noun, the
// span is put before the sentence's final punctuation: it is never lost.
#pragma once
#include "text/lang.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attend {

class Vocab;

struct CopySpan {
    std::size_t begin = 0, end = 0;  // bytes of the text: [begin, end)
};

// URLs (scheme:// or www.), e-mail addresses, and numbers (digits with inner . , : / - separators, as in 3.14,
// 1,250,000, 10:45, 2024-03-15), left to right, not overlapping.
std::vector<CopySpan> find_copy_spans(std::string_view text);

// A text with its spans replaced by placeholders, and what restores them.
struct MaskedText {
    std::string text;                    // what the model translates
    std::vector<std::string> originals;  // span texts, in order
    std::vector<std::string> source_words, target_words;  // the placeholder of each span in both languages
    bool whole = false;                  // the text is one span and nothing else: its translation is itself
};

// Masks `text`'s spans with placeholders that the model's vocabularies hold as whole tokens and that the text
// does not contain already. Spans beyond the placeholders available stay as they are. No span: text unchanged.
MaskedText mask_copy_spans(std::string_view text, Lang source, Lang target, const Vocab& source_vocab,
                           const Vocab& target_vocab);

// The translation of a masked text with each placeholder's translation (the first word that begins with the
// target placeholder, an article right before it dropped) replaced by its span; a span whose placeholder is not
// found goes before the final punctuation. `lowercase`: the spans are lowercased (tokenized BLEU text).
std::string restore_copy_spans(const std::string& translation, const MaskedText& masked, bool lowercase);

// Model tokens with the placeholder's token replaced by the span (attention views show what the user typed).
void restore_copy_tokens(std::vector<std::string>& tokens, const std::vector<std::string>& words,
                         const std::vector<std::string>& originals);

}  // namespace attend
