// What a translation model should not read of a text, taken out before translation and put back after it: markup
// (HTML and XML tags, Markdown marks, code spans) and pictographs (emoji). A caption model has seen none of them;
// read, they derail the sentence ("<b>A dog</b> runs on the <i>beach</i>." came out as an invented caption), and
// a code span is not for translating at all.
#pragma once
#include <string>
#include <vector>

namespace attend {

struct Aside {
    std::string text;                 // UTF-8, as it was in the source
    int words_before = 0;             // words (runs between spaces) of the kept text before it
    bool before_punctuation = false;  // only punctuation follows it in the kept text: it goes before the output's
    // A tag or mark that touched the word before or after it in the source touches it in the translation.
    bool glue_previous = false, glue_next = false;
    // A tag or mark that opens ("<b>dog", "**dog", "[dog") or closes ("dog</b>", "dog**.", "dog](https://...)")
    // on a word goes where the translation of that word is (WordAlignment). Pictographs and marks between spaces
    // stand apart and keep their share of the words, and so does a closing tag after the text's final punctuation
    // ("...</a>.</p>") and the tag it answers: they hold the whole sentence.
    bool opens = false, closes = false;
    int word = -1;  // the kept word it opens or closes on; -1: none
};

struct TakenOut {
    std::u32string kept;  // the text without its asides: what the model reads
    std::vector<Aside> asides;  // in source order
    int words = 0;        // in `kept`
    bool html = false;    // the text had HTML tags or character references: it is HTML, and so is its translation
};

// Takes out of `text`: HTML/XML tags and comments ("<b>", "</a>", "<a href=\"x\">", "<br/>", "<!-- -->"); Markdown
// headings, list and quote marks at the start ("# ", "- ", "> "), emphasis at a word's edge ("**", "_", "~~"), code
// spans ("`ls -la`"), a link's "[" and its "](address)"; runs of pictographs. A space next to a pictograph goes
// with it unless spaces surround it; a line-breaking tag between two words ("dog<br>runs") leaves a space. HTML
// character references ("&amp;", "&nbsp;", "&eacute;", "&#233;") are read as the characters they stand for.
TakenOut take_out_asides(const std::u32string& text);

// Which words of a translation say each kept word of its source (from the model's cross attention): for source
// word k, the first and the last translation word aligned to it, -1 for both where none is.
struct WordAlignment {
    std::vector<int> first, last;  // [source words]
};

// `translation` (UTF-8, words between spaces) with the asides of a source of `words` kept words put back, in
// source order, touching their neighbours where they touched them in the source. A tag or mark that opens or
// closes on a word goes before or after the translation words aligned to it (`alignment`, when given and of
// `words` entries): a pair of them around source words i..j goes around every translation word aligned to any of
// them, so "<b>red car</b>" gives "<b>voiture rouge</b>". Any other aside, and every one without an aligned word,
// goes at the start, at the end (before the final punctuation where the source had it there), or after the same
// share of the words. No aside goes before one that came before it in the source, so tags stay well nested.
// html: the source was HTML (TakenOut::html), and the translation's "&", "<" and ">" are written as references.
std::string put_back_asides(const std::string& translation, const std::vector<Aside>& asides, int words,
                            bool html = false, const WordAlignment* alignment = nullptr);

}  // namespace attend
