// Sentence splitting with the rules of Moses' split-sentences.perl and its non-breaking prefix lists (the same
// lists the tokenizer uses): a sentence ends at ?, ! or . (also ... and closing quotes or brackets after them)
// when the next word starts with an upper-case letter (after opening quotes or brackets), or, after a period,
// with a digit; never after a non-breaking prefix ("Mr.", "z.B."), nor after an upper-case acronym ("U.S."),
// nor after a numeric-only prefix ("No.") when a number follows. A line break always ends a sentence (lines are
// kept, unlike Moses, which joins the lines of a paragraph).
#pragma once
#include "text/nonbreaking_prefixes.h"

#include <cstddef>
#include <string_view>
#include <vector>

namespace attend {

struct SentenceSpan {
    std::size_t begin = 0, end = 0;  // bytes of the text: [begin, end), without surrounding spaces
    int line = 0;                    // 0-based line of the text the sentence is on
};

// The sentences of UTF-8 `text`, in order; blank lines hold none. Throws attend::Error on invalid UTF-8.
std::vector<SentenceSpan> split_sentences(std::string_view text, const NonbreakingPrefixes& prefixes);

}  // namespace attend
