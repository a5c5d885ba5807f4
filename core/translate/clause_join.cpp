#include "translate/clause_join.h"

#include "error.h"
#include "text/case_mapping.h"
#include "text/char_class.h"
#include "text/utf8.h"
#include "text/word_lists.h"

#include <algorithm>
#include <string_view>

namespace attend {

namespace {

bool is_upper(char32_t c) { return to_lower(c) != c; }

// A word's letters and digits, without the punctuation around it ("«Paris»," -> "Paris").
std::u32string core_of(std::u32string_view word) {
    size_t b = 0, e = word.size();
    while (b < e && !is_alnum(word[b])) b++;
    while (e > b && !is_alnum(word[e - 1])) e--;
    return std::u32string(word.substr(b, e - b));
}

bool written_in(std::u32string_view word, std::string_view source) {
    const std::u32string text = utf8_decode(source);
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find(U' ', at);
        if (end == std::u32string::npos) end = text.size();
        if (core_of(std::u32string_view(text).substr(at, end - at)) == word) return true;
        at = end + 1;
    }
    return false;
}

std::string joiner_of(ClauseJoint joint, Lang target, bool tokenized) {
    if (joint == ClauseJoint::semicolon) return tokenized || target == Lang::fr ? " ; " : "; ";
    const char* conjunction = target == Lang::en ? "and" : target == Lang::de ? "und" : "et";
    return std::string(tokenized ? " , " : ", ") + conjunction + " ";
}

bool ends_with_mark(std::string_view s) {
    return !s.empty() && (s.back() == '.' || s.back() == '!' || s.back() == '?');
}

// The text without its final mark and the spaces before it ("Un chien court !" -> "Un chien court"); an ellipsis
// ("...") stays.
void drop_final_mark(std::string& text) {
    if (!ends_with_mark(text) || (text.size() >= 2 && text[text.size() - 2] == '.')) return;
    text.pop_back();
    while (!text.empty() && text.back() == ' ') text.pop_back();
}

}  // namespace

std::string lower_clause_start(std::string_view translation, Lang target, std::string_view source_clause) {
    const std::u32string text = utf8_decode(translation);
    const size_t word_end = std::min(text.find(U' '), text.size());
    const std::u32string_view word = std::u32string_view(text).substr(0, word_end);
    size_t first = 0;  // the word's first letter
    while (first < word.size() && !is_alpha(word[first])) first++;
    if (first == word.size() || !is_upper(word[first])) return std::string(translation);
    for (size_t i = first + 1; i < word.size(); i++)
        if (is_upper(word[i])) return std::string(translation);  // "USA", "McDonald's"
    const std::u32string core = core_of(word);
    if (target == Lang::en && (core == U"I" || word.substr(first).rfind(U"I'", 0) == 0 ||
                               word.substr(first).rfind(U"I\u2019", 0) == 0))
        return std::string(translation);
    if (written_in(core, source_clause)) return std::string(translation);
    std::u32string lower = core;
    for (char32_t& c : lower) c = to_lower(c);
    // German capitalizes nouns and names: only a word of the closed classes (data/lang/de/clause_starts.txt) starts
    // a clause in lower case inside a sentence; what the list lacks, an adjective among them, keeps its capital.
    if (target == Lang::de && !word_list("de/clause_starts").contains(utf8_encode(lower)))
        return std::string(translation);
    std::u32string out = text;
    out[first] = to_lower(out[first]);
    return utf8_encode(out);
}

std::vector<PlacedTranslation> place_translations(std::string_view source, const std::vector<Clause>& segments,
                                                  const std::vector<std::string>& translations, Lang target,
                                                  bool tokenized) {
    if (segments.size() != translations.size())
        throw Error("place_translations: " + std::to_string(segments.size()) + " segments but " +
                    std::to_string(translations.size()) + " translations");
    std::vector<PlacedTranslation> out(segments.size());
    int line = -1;
    long sentence = -1, last_sentence = -1;  // the sentence of the last translation placed on the line
    long last = -1;                          // that translation's segment
    for (size_t i = 0; i < segments.size(); i++) {
        const Clause& segment = segments[i];
        if (segment.joint == ClauseJoint::none) sentence++;
        if (segment.span.line != line) {
            line = segment.span.line;
            last = -1;
        }
        if (translations[i].empty()) continue;
        const std::string_view clause_source = source.substr(segment.span.begin, segment.span.end - segment.span.begin);
        PlacedTranslation& placed = out[i];
        if (last < 0) {
            placed.text = translations[i];
        } else if (last_sentence != sentence) {
            placed.joiner = " ";
            placed.text = translations[i];
        } else {
            placed.joiner = joiner_of(segment.joint, target, tokenized);
            placed.text = lower_clause_start(translations[i], target, clause_source);
            const Clause& before = segments[last];
            if (!ends_with_mark(source.substr(before.span.begin, before.span.end - before.span.begin)))
                drop_final_mark(out[last].text);
        }
        last = static_cast<long>(i);
        last_sentence = sentence;
    }
    return out;
}

}  // namespace attend
