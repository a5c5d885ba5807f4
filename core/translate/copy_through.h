// Copy-through of what a translation model must not translate: URLs, e-mail addresses, numbers and names. Models
// trained on image captions garble them ("It costs 25 dollars." -> "... 20ern ..."; "dancing with Carlos" -> "tanzt
// mit Cargo"), so each such span is replaced, before translation, by a word the model translates reliably (a
// placeholder: the common noun "dog" for en, "Hund" for de, ...; for a name, a name the captions hold, written the
// same in every language), and the placeholder's translation in the output is replaced by the span itself. Where the
// model dropped the placeholder, the span is put before the sentence's final punctuation: it is never lost.
#pragma once
#include "text/lang.h"
#include "text/nonbreaking_prefixes.h"

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

// Names in an English or French text (German: below): runs of capitalized words ("Carlos", "Mike Tyson") of which at
// least one is no token of `source_vocab` in either case ("Frisbee", "New York" are the model's own), or a common
// given name alone ("John", which the captions hold in "John Deere"). A sentence's
// first word is capitalized whatever it is ("Skateboarders ..."): it is a name only if it is a given name, before
// more capitalized words, joined by "and"/"et" to another name, or before "is", "was", "has" ("est", "a", "était" in
// French). Not a thing after "a"/"an"/"un"/"une", a country after "au"/"aux"/"en", nor an adjective of a nation or a
// day before a word ("a Hummer", "au Brésil", "Mexican food"): the models translate those. German capitalizes every
// noun: there, only a given name is a name, with the capitalized words after it the vocabulary lacks, and not after
// an article. In any language, a title that `prefixes` keeps with its period ("Dr.", "Mrs.", "Prof.": Moses'
// non-breaking prefixes) before a capitalized word begins a name, title included ("Dr. Smith"), with the capitalized
// words after it the vocabulary lacks: the period ends no sentence there.
std::vector<CopySpan> find_name_spans(std::string_view text, Lang lang, const Vocab& source_vocab,
                                      const NonbreakingPrefixes* prefixes = nullptr);

// The name placeholders a model file names none of: names of the training captions that the shipped en→de and
// en→fr models write back unchanged in most sentences ("Obama", "Seattle", "Miami", "Boston").
const std::vector<std::string>& default_name_placeholders();

// A text with its spans replaced by placeholders, and what restores them.
struct MaskedText {
    std::string text;                    // what the model translates
    std::vector<std::string> originals;  // span texts, in order
    std::vector<std::string> source_words, target_words;  // the placeholder of each span in both languages
    std::vector<bool> names;             // which spans are names (a name placeholder)
    std::vector<bool> source_articles;   // which names have an article before them in the text ("the Saints")
    bool whole = false;                  // the text is one span and nothing else: its translation is itself
};

// Masks `text`'s spans with placeholders that the model's vocabularies hold as whole tokens (a noun) or that the
// model writes back (a name), and that the text does not contain already. Spans beyond the placeholders available
// stay as they are. No span: text unchanged. `names`: mask names too (find_name_spans), for cased models: a
// lowercasing model reads every word in lowercase and cannot tell a name. `name_placeholders`: the names that stand
// for them, in order of use (a model's own, which it writes back best, or the default).
MaskedText mask_copy_spans(std::string_view text, Lang source, Lang target, const Vocab& source_vocab,
                           const Vocab& target_vocab, bool names = false,
                           const std::vector<std::string>& name_placeholders = default_name_placeholders(),
                           const NonbreakingPrefixes* prefixes = nullptr);

// Whether `translation` (of masked.text) holds each name placeholder exactly once, as a word of its own or with an
// ending ("Obamas"): where it does not, restore_copy_spans can only guess where the name goes.
bool names_written_back(std::string_view translation, const MaskedText& masked);

// The translation of a masked text with each placeholder's translation (the first word that begins with the
// target placeholder, an article right before it dropped: "ein Hund", "l'Obama") replaced by its span; a span whose
// placeholder is not found goes before the final punctuation. A name placeholder the model wrote again is dropped.
// `lowercase`: the spans are lowercased (tokenized BLEU text).
std::string restore_copy_spans(const std::string& translation, const MaskedText& masked, bool lowercase);

// Model tokens with the placeholder's token replaced by the span (attention views show what the user typed); a
// placeholder in pieces ("Ob@@ ama") becomes the span on its first piece and empty pieces after it, still one word.
void restore_copy_tokens(std::vector<std::string>& tokens, const std::vector<std::string>& words,
                         const std::vector<std::string>& originals);

}  // namespace attend
