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

// `translation` (UTF-8, words between spaces) with the asides of a source of `words` kept words put back: at the
// start, at the end (before the final punctuation where the source had them there), or after the same share of
// its words, in source order, touching their neighbours where they touched them in the source. html: the source
// was HTML (TakenOut::html), and the translation's "&", "<" and ">" are written as references.
std::string put_back_asides(const std::string& translation, const std::vector<Aside>& asides, int words,
                            bool html = false);

}  // namespace attend
