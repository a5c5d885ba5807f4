// Sentence splitting with the rules of Moses' split-sentences.perl and its non-breaking prefix lists (the same
// lists the tokenizer uses): a sentence ends at ?, ! or . (also ... and closing quotes or brackets after them)
// when the next word starts with an upper-case letter (after opening quotes or brackets), or, after a period,
// with a digit; never after a non-breaking prefix ("Mr.", "z.B."), nor after an upper-case acronym ("U.S."),
// nor after a numeric-only prefix ("No.") when a number follows. A line break always ends a sentence (lines are
// kept, unlike Moses, which joins the lines of a paragraph). Chinese and Japanese full stops, question and
// exclamation marks (。？！, with closing quotes or brackets after them) end a sentence wherever more text follows,
// spaces or none.
#pragma once
#include "text/lang.h"
#include "text/nonbreaking_prefixes.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attend {

struct SentenceSpan {
    std::size_t begin = 0, end = 0;  // bytes of the text: [begin, end), without surrounding spaces
    int line = 0;                    // 0-based line of the text the sentence is on
};

// The sentences of UTF-8 `text`, in order; blank lines hold none. Throws attend::Error on invalid UTF-8.
std::vector<SentenceSpan> split_sentences(std::string_view text, const NonbreakingPrefixes& prefixes);

// A clause of a long sentence, translated as a sentence of its own: a model trained on captions of 10 to 25 words
// drops and invents content in longer ones. (bench/joined_captions.py: test2016's captions joined in threes with
// ", and", 36 words on average; cased 13a BLEU / chrF2 of the shipped models, whole -> clause by clause, joined
// again by translate/clause_join.h: en->de 22.4 / 49.5 -> 45.2 / 67.3, en->fr 41.2 / 61.5 -> 65.7 / 78.3.)
// What joins a clause to the one before it in its sentence (translate/clause_join.h writes it again in the
// translation).
enum class ClauseJoint { none, semicolon, conjunction };  // none: the clause starts its sentence

struct Clause {
    SentenceSpan span;  // the clause's bytes, without the comma or semicolon after it and the conjunction before it
    // What a model reads: the clause with its first letter in upper case (but the first clause's) and, when another
    // clause follows, the sentence's final punctuation mark (. ! ?) after it.
    std::string text;
    ClauseJoint joint = ClauseJoint::none;
};

// The clauses of `sentence` (a span of `text`) when it has more than max_words words (runs between spaces); else,
// or when max_words is 0, the sentence as its one clause. A clause ends at a semicolon (not an HTML entity's), or
// at a comma before the coordinating conjunction of `lang` ("and", "und", "et"), where both sides keep at least
// kMinClauseWords words.
constexpr int kMinClauseWords = 4;
std::vector<Clause> split_clauses(std::string_view text, const SentenceSpan& sentence, Lang lang, int max_words);

}  // namespace attend
