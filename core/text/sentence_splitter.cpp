#include "text/sentence_splitter.h"

#include "text/case_mapping.h"
#include "text/char_class.h"
#include "text/utf8.h"

#include <string>

namespace attend {
namespace {

// A word: a run of non-space code points, with its bytes in the text.
struct Word {
    std::u32string cps;
    std::size_t begin, end;
};

// The words of text[begin, end), with their byte ranges in `text`.
std::vector<Word> words_in(std::string_view text, std::size_t begin, std::size_t end) {
    std::vector<Word> words;
    std::size_t at = begin;
    for (char32_t c : utf8_decode(text.substr(begin, end - begin))) {
        const std::size_t next = at + (c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);
        if (!is_space(c)) {
            if (words.empty() || words.back().end != at) words.push_back({{}, at, at});
            words.back().cps.push_back(c);
            words.back().end = next;
        }
        at = next;
    }
    return words;
}

bool is_upper(char32_t c) { return to_lower(c) != c; }

// Perl's \p{IsPi} and \p{IsPf}: initial and final quotation marks.
bool is_initial_quote(char32_t c) {
    return c == U'\u00AB' || c == U'\u2018' || c == U'\u201B' || c == U'\u201C' || c == U'\u201F' || c == U'\u2039' ||
           c == U'\u2E02' || c == U'\u2E04' || c == U'\u2E09' || c == U'\u2E0C' || c == U'\u2E1C' || c == U'\u2E20';
}
bool is_final_quote(char32_t c) {
    return c == U'\u00BB' || c == U'\u2019' || c == U'\u201D' || c == U'\u203A' || c == U'\u2E03' || c == U'\u2E05' ||
           c == U'\u2E0A' || c == U'\u2E0D' || c == U'\u2E1D' || c == U'\u2E21';
}
// [\'\"\(\[\¿\¡\p{IsPi}]: what may open a sentence before its first letter.
bool is_opening(char32_t c) {
    return c == U'\'' || c == U'"' || c == U'(' || c == U'[' || c == U'\u00BF' || c == U'\u00A1' || is_initial_quote(c);
}
// [\'\"\)\]\p{IsPf}]: what may close a sentence after its final punctuation.
bool is_closing(char32_t c) { return c == U'\'' || c == U'"' || c == U')' || c == U']' || is_final_quote(c); }
bool is_terminal(char32_t c) { return c == U'?' || c == U'!' || c == U'.'; }

// The first code point of `next` after its opening punctuation (and spaces around it: "« Rentre"), and how many
// opening marks came before it.
char32_t first_letter(const std::u32string& next, std::size_t& openings) {
    openings = 0;
    std::size_t i = 0;
    for (; i < next.size() && (is_opening(next[i]) || next[i] == U' '); i++)
        if (next[i] != U' ') openings++;
    return i < next.size() ? next[i] : U'\0';
}

// Whether a sentence ends after `w` when `next` follows it (split-sentences.perl's rules, in its order).
bool ends_sentence(const std::u32string& w, const std::u32string& next, const NonbreakingPrefixes& prefixes) {
    if (w.empty() || next.empty()) return false;
    std::size_t openings = 0;
    const char32_t first = first_letter(next, openings);
    const bool upper = is_upper(first);
    const char32_t last = w.back();
    // ? or ! before an upper-case start; two or more dots before one.
    if ((last == U'?' || last == U'!') && upper) return true;
    if (w.size() >= 2 && last == U'.' && w[w.size() - 2] == U'.' && upper) return true;
    // Terminal punctuation inside closing quotes or brackets: ." or ?) before an upper-case start.
    std::size_t k = w.size();
    while (k > 0 && is_closing(w[k - 1])) k--;
    if (k < w.size() && k > 0 && is_terminal(w[k - 1]) && upper) return true;
    // Terminal punctuation before opening punctuation and an upper-case start: ." (A ...
    if (is_terminal(last) && openings > 0 && upper) return true;

    // The remaining case: periods at the end of the word. /([\p{IsAlnum}.\-]*)([\'\"\)\]\%\p{IsPf}]*)(\.+)$/
    if (last != U'.') return false;
    std::size_t dots = w.size();
    while (dots > 0 && w[dots - 1] == U'.') dots--;
    std::size_t punct = dots;
    while (punct > 0 && (is_closing(w[punct - 1]) || w[punct - 1] == U'%')) punct--;
    std::size_t start = punct;
    while (start > 0 && (is_alnum(w[start - 1]) || w[start - 1] == U'.' || w[start - 1] == U'-')) start--;
    const std::string prefix = utf8_encode(w.substr(start, punct - start));
    const bool starting_punct = punct < dots;
    const NonbreakingPrefixes::Kind kind = prefix.empty() ? NonbreakingPrefixes::Kind::none : prefixes.kind(prefix);
    if (kind == NonbreakingPrefixes::Kind::always && !starting_punct) return false;
    // An upper-case acronym: /(\.)[\p{IsUpper}\-]+(\.+)$/ ("U.S.").
    {
        std::size_t j = dots;
        while (j > 0 && (is_upper(w[j - 1]) || w[j - 1] == U'-')) j--;
        if (j < dots && j > 0 && w[j - 1] == U'.') return false;
    }
    // The next word starts (after opening punctuation) with an upper-case letter or a digit.
    const bool digit = first >= U'0' && first <= U'9';
    if (!(upper || digit)) return false;
    // ... unless a numeric-only prefix ("No.") stands before a number.
    const bool number_follows = next[0] >= U'0' && next[0] <= U'9';
    return !(kind == NonbreakingPrefixes::Kind::numeric_only && !starting_punct && number_follows);
}

// Chinese and Japanese end a sentence with a full-width mark and write the next one without a space: 。！？ (and
// a run of them, "？！"), with the closing quotes and brackets after them, end a sentence wherever more follows.
bool is_cjk_terminal(char32_t c) { return c == U'\u3002' || c == U'\uFF01' || c == U'\uFF1F' || c == U'\uFF61'; }
bool is_cjk_closing(char32_t c) {
    return c == U'\u201D' || c == U'\u2019' || c == U'\u300D' || c == U'\u300F' || c == U'\uFF09' || c == U'\u3011' ||
           c == U'\u300B' || c == U'\u3009';
}

// `span` cut after each full-width terminal mark that more text follows.
void split_at_cjk_terminals(std::string_view text, const SentenceSpan& span, std::vector<SentenceSpan>& out) {
    const std::u32string cps = utf8_decode(text.substr(span.begin, span.end - span.begin));
    std::size_t begin = span.begin, at = span.begin;
    auto width = [](char32_t c) -> std::size_t { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; };
    for (std::size_t i = 0; i < cps.size(); i++) {
        at += width(cps[i]);
        if (!is_cjk_terminal(cps[i]) || (i + 1 < cps.size() && is_cjk_terminal(cps[i + 1]))) continue;
        while (i + 1 < cps.size() && is_cjk_closing(cps[i + 1])) at += width(cps[++i]);
        std::size_t next = i + 1, next_at = at;
        while (next < cps.size() && is_space(cps[next])) next_at += width(cps[next++]);
        if (next == cps.size()) break;
        out.push_back({begin, at, span.line});
        begin = next_at;
    }
    out.push_back({begin, span.end, span.line});
}

}  // namespace

std::vector<SentenceSpan> split_sentences(std::string_view text, const NonbreakingPrefixes& prefixes) {
    utf8_validate(text, "the text");
    std::vector<SentenceSpan> out;
    std::size_t line_begin = 0;
    for (int line = 0; line_begin <= text.size(); line++) {
        std::size_t line_end = text.find('\n', line_begin);
        if (line_end == std::string_view::npos) line_end = text.size();
        const std::vector<Word> words = words_in(text, line_begin, line_end);
        std::size_t first = 0;
        for (std::size_t i = 0; i < words.size(); i++) {
            const bool last_word = i + 1 == words.size();
            // A word of opening marks alone ("«") is read with the word it opens.
            std::u32string next;
            for (std::size_t j = i + 1; j < words.size(); j++) {
                if (!next.empty()) next.push_back(U' ');
                next += words[j].cps;
                bool opening_only = true;
                for (char32_t c : words[j].cps) opening_only = opening_only && is_opening(c);
                if (!opening_only) break;
            }
            if (last_word || ends_sentence(words[i].cps, next, prefixes)) {
                split_at_cjk_terminals(text, {words[first].begin, words[i].end, line}, out);
                first = i + 1;
            }
        }
        if (line_end == text.size()) break;
        line_begin = line_end + 1;
    }
    return out;
}

std::vector<Clause> split_clauses(std::string_view text, const SentenceSpan& sentence, Lang lang,
                                  int max_words) {
    const std::string_view whole = text.substr(sentence.begin, sentence.end - sentence.begin);
    const std::vector<Word> words = words_in(text, sentence.begin, sentence.end);
    const int n = static_cast<int>(words.size());
    if (max_words <= 0 || n <= max_words) return {{sentence, std::string(whole)}};
    const std::u32string conjunction = lang == Lang::en ? U"and" : lang == Lang::de ? U"und" : U"et";
    auto is_conjunction = [&](int i) {
        if (i >= n || words[i].cps.size() != conjunction.size()) return false;
        for (std::size_t k = 0; k < conjunction.size(); k++)
            if (to_lower(words[i].cps[k]) != conjunction[k]) return false;
        return true;
    };
    std::vector<SentenceSpan> spans;
    std::vector<ClauseJoint> joints = {ClauseJoint::none};
    int first = 0;  // the current clause's first word
    for (int i = 0; i < n; i++) {
        const std::u32string& w = words[i].cps;
        const bool alone = w.size() == 1;  // " ; " as French writes it, or a tokenized " , "
        int last = alone ? i - 1 : i, next = -1;
        ClauseJoint joint = ClauseJoint::semicolon;
        if (w.back() == U';' && w.find(U'&') == std::u32string::npos) {  // not an HTML entity ("&amp;")
            next = i + 1;
        } else if (w.back() == U',' && is_conjunction(i + 1)) {
            next = i + 2;
            joint = ClauseJoint::conjunction;
        }
        if (next < 0 || last - first + 1 < kMinClauseWords || n - next < kMinClauseWords) continue;
        spans.push_back({words[first].begin, alone ? words[last].end : words[i].end - 1, sentence.line});
        joints.push_back(joint);
        first = next;
        i = next - 1;
    }
    if (spans.empty()) return {{sentence, std::string(whole)}};
    spans.push_back({words[first].begin, sentence.end, sentence.line});

    const char ending = whole.back() == '.' || whole.back() == '!' || whole.back() == '?' ? whole.back() : '\0';
    std::vector<Clause> out;
    for (std::size_t k = 0; k < spans.size(); k++) {
        std::string clause(text.substr(spans[k].begin, spans[k].end - spans[k].begin));
        if (k > 0) clause = capitalize_first(clause);
        const bool ended = clause.back() == '.' || clause.back() == '!' || clause.back() == '?';
        if (k + 1 < spans.size() && ending && !ended) clause += ending;
        out.push_back({spans[k], std::move(clause), joints[k]});
    }
    return out;
}

}  // namespace attend
