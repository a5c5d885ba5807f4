// The reversible steps between a user's text and what a translation model reads (Bergamot's HTML class is the
// model): each stage takes something out of the text before translation and keeps it in its own typed state, and
// puts it back into the translation after the search, along the word alignment where it needs one. A stage is
// a class with
//   using State = ...;                                         // what its restore needs; nothing else
//   Staged<State> prepare(std::string text) const;             // the text for the next stage, and its state
//                                                              // (MarkupStage's also says when only markup had
//                                                              // letters: nothing to translate)
//   void restore(TranslationResult& r, const State& state, const StageContext& context) const;
// and the Translator composes them: prepare in order (recasing, markup, copy-through), restore in the reverse order
// (copy spans back into the translation, markup around its words, then capitals), each text keeping the list of
// its stages' states. A stage whose prepare gives no state left the text as it was and restores nothing.
#pragma once
#include "attend/translation.h"
#include "translate/asides.h"
#include "translate/copy_through.h"
#include "translate/model_file.h"

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attend {

template <class State>
struct Staged {
    std::string text;            // what the next stage (at last, the model) reads
    std::optional<State> state;  // nullopt: the text is unchanged and there is nothing to restore
};

// What a stage's restore reads besides its own state: the options, and which words of r's translation say each of
// the `words` words of the text the model read (WordAlignment; nullopt where that is not known). The Translator's
// is markup_alignment; a test's may be any.
struct StageContext {
    const TranslationOptions& options;
    std::function<std::optional<WordAlignment>(const TranslationResult& r, int words)> align;
};

// Markup and pictographs (translate/asides.h): taken out of the text, put back around the words of the translation
// aligned with the words they marked (from the model's cross attention), or at the same share of the words.
class MarkupStage {
public:
    struct State {
        std::vector<Aside> asides;
        int words = 0;      // of the text the model reads
        bool html = false;  // HTML: references read as characters, and written in the translation
    };
    // nullopt state where the text has no markup, pictographs or character references, or only they have letters
    // (`only_markup` set: "<br>", "<p></p>", nothing to translate).
    Staged<State> prepare(std::string text, bool& only_markup) const;
    void restore(TranslationResult& r, const State& state, const StageContext& context) const;
};

// A text in capitals ("A DOG RUNS.") is read in sentence case, which the models know, and its translation written
// in capitals: markup included, which was in capitals too (in_capitals: no lower-case letter anywhere).
class RecasingStage {
public:
    struct State {};  // its presence: the text was in capitals
    Staged<State> prepare(std::string text) const;
    void restore(TranslationResult& r, const State& state, const StageContext& context) const;
};

// Copy-through (translate/copy_through.h): URLs, numbers and names masked with placeholders, and the spans put back
// in place of the placeholders' translations, in the text and in the tokens.
class CopyThroughStage {
public:
    struct State {
        std::string read;   // the text before masking, for another try with other names
        MaskedText masked;  // masked.text: what the model reads
    };
    explicit CopyThroughStage(const TranslatorModel& model) : model_(model) {}
    Staged<State> prepare(std::string text) const;
    // Restores the tokens of every result (the attention views show what the user typed), the text where r was
    // translated.
    void restore(TranslationResult& r, const State& state, const StageContext& context) const;

    // A model writes some names back where it drops others in the same place: when a translation of state's text
    // lost a name placeholder or wrote one twice (names_kept false), the Translator searches again with the text
    // masked with the model's other name placeholders first: the `shift`-th turn of them (1 .. name_turns() - 1),
    // nullopt where that masks the text as `state` does.
    bool names_kept(std::string_view translation, const State& state) const;
    std::size_t name_turns() const;
    std::optional<State> with_names_turned(const State& state, std::size_t shift) const;

private:
    MaskedText mask(std::string_view read, const std::vector<std::string>& name_placeholders) const;
    const TranslatorModel& model_;
};

// Which words of r's translation say each of the `words` words of `model_text`, the text the model read of which
// r.source_tokens are the tokens, from the model's cross attention (computed here unless r has it): for each source
// word, the target words of its tokens' mutual best pairs (the layers alignment_layers_of names, their heads
// averaged). nullopt where the tokens cannot be traced back to the words they came from (a cut source, a d2l-words
// model).
std::optional<WordAlignment> markup_alignment(const TranslationResult& r, std::string_view model_text, int words,
                                              const TranslatorModel& model);

// The attention maps (and with `neurons` the query and key vectors) of r's own translation: the model reads r's
// source tokens and is fed r's target tokens (teacher forcing). r has target ids.
TranslationAttention attention_of_translation(const TranslatorModel& model, const TranslationResult& r,
                                              bool neurons = false);

// The names copy-through masks a text's names with: the model file's own, else the default ones.
const std::vector<std::string>& name_placeholders_of(const TranslatorModel& model);
// The cross attention layers whose mean aligns words for markup: the model file's, or every layer.
std::array<int, 2> alignment_layers_of(const TranslatorModel& model);

}  // namespace attend
