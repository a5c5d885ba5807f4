// A document's translations laid out as its text was: a line's sentences one after another with a space between
// them, and the clauses of a long sentence (text/sentence_splitter.h), which a model reads as sentences of their
// own, joined again into one sentence ("Zwei Hunde rennen am Strand, und ein Mann wirft einen Ball." rather than
// "Zwei Hunde rennen am Strand. Ein Mann wirft einen Ball.").
#pragma once
#include "text/lang.h"
#include "text/sentence_splitter.h"

#include <string>
#include <string_view>
#include <vector>

namespace attend {

// Where one segment's translation goes in its line.
struct PlacedTranslation {
    // What comes before it: nothing first on its line, a space after another sentence; after the clause before it in
    // its sentence, a semicolon ("; ", French " ; ") or a comma and the target language's conjunction (", und ").
    std::string joiner;
    // The translation as it reads there: a clause that the next one joins loses the final mark (. ! ?) it was read
    // and written with (unless its source had one), and a joined clause starts as lower_clause_start() says.
    std::string text;
};

// segments: a text's segments in order (Translator::segments: sentences and clauses, with their lines), source the
// text they point into; translations[i] is segments[i]'s translation, empty where it failed (it takes no place: the
// joiner it would have had goes to the next one). tokenized: the translations are tokenized (Moses tokens between
// spaces, what BLEU scores), and so are the joiners (" , und "). Throws attend::Error when the sizes differ.
std::vector<PlacedTranslation> place_translations(std::string_view source, const std::vector<Clause>& segments,
                                                  const std::vector<std::string>& translations, Lang target,
                                                  bool tokenized = false);

// A clause's translation as it reads after a comma or semicolon: its first letter in lower case, unless its first
// word keeps its capital: a word written so in the clause's source (a name the model copied), a word with a capital
// after its first letter ("USA", "McDonald"), English "I", and in German, whose nouns are written with a capital,
// any word but the closed classes that start a clause (articles, pronouns, numerals, prepositions, some adverbs).
std::string lower_clause_start(std::string_view translation, Lang target, std::string_view source_clause);

}  // namespace attend
