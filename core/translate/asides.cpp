#include "translate/asides.h"

#include "text/char_class.h"
#include "text/utf8.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <utility>
#include <iterator>
#include <string_view>

namespace attend {
namespace {

// Pictographs and the marks that join or vary them (emoji, dingbats, arrows, geometric shapes): no model here has
// seen them, and one inside a sentence is an unknown token that derails what follows it.
bool pictographic(char32_t cp) {
    return (cp >= 0x2190 && cp <= 0x21FF) || (cp >= 0x2300 && cp <= 0x23FF) || (cp >= 0x2500 && cp <= 0x27BF) ||
           (cp >= 0x2900 && cp <= 0x297F) || (cp >= 0x2B00 && cp <= 0x2BFF) || (cp >= 0x1F000 && cp <= 0x1FAFF) ||
           cp == 0x200D || cp == 0x20E3 || cp == 0xFE0E || cp == 0xFE0F || (cp >= 0xE0020 && cp <= 0xE007F);
}

bool punctuation_or_space(char32_t cp) { return !is_alnum(cp) && !pictographic(cp); }

bool ascii_letter(char32_t c) { return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z'); }

// What the scans below have found so far: each text is read once, so that a text of many unmatched "<!--", "["
// or "`" takes linear time, not quadratic.
struct ScanState {
    bool link_open = false;             // a link's "[" was taken out; its "](address)" is still to come
    size_t link_close = 0;              // the next "](" (with a ")" after it) after the last '[' (npos: none)
    bool link_close_known = false;
    bool comment_unclosed = false;      // no "-->" after some "<!--": none after any later one either
    std::u32string unmatched_ticks;     // lengths of backtick runs with no closing run after them (as characters)
};

// Where the HTML or XML tag that starts at text[i] ends ("<b>", "</i>", "<a href=\"x\">", "<br/>", "<!-- ... -->"),
// or npos: markup is not for translating, and a model that reads it invents a caption around it.
size_t markup_tag_end(const std::u32string& text, size_t i, ScanState& state) {
    if (text[i] != U'<') return std::u32string::npos;
    if (text.compare(i, 4, U"<!--") == 0) {
        const size_t end = state.comment_unclosed ? std::u32string::npos : text.find(U"-->", i + 4);
        state.comment_unclosed = end == std::u32string::npos;
        return end == std::u32string::npos ? end : end + 3;
    }
    size_t j = i + 1;
    if (j < text.size() && text[j] == U'/') j++;
    if (j >= text.size() || !ascii_letter(text[j])) return std::u32string::npos;  // "a < b", "<3"
    while (j < text.size() && (ascii_letter(text[j]) || (text[j] >= U'0' && text[j] <= U'9') || text[j] == U'-' ||
                               text[j] == U':'))
        j++;
    if (j < text.size() && text[j] != U'>' && text[j] != U'/' && !is_space(text[j])) return std::u32string::npos;
    char32_t quote = 0;  // attribute values may hold '>'
    for (; j < text.size(); j++) {
        if (quote) {
            if (text[j] == quote) quote = 0;
        } else if (text[j] == U'"' || text[j] == U'\'') {
            quote = text[j];
        } else if (text[j] == U'<') {
            return std::u32string::npos;
        } else if (text[j] == U'>') {
            return j + 1;
        }
    }
    return std::u32string::npos;
}

// Where the Markdown mark that starts at text[i] ends, or npos: a heading, list or quote mark at the start ("# ",
// "- ", "> "), emphasis at a word's edge ("**bold**", "_it_", "~~gone~~"), a code span ("`x = 1`", not to be
// translated), a link's brackets and address ("[a dog](https://...)").
size_t markdown_mark_end(const std::u32string& text, size_t i, ScanState& state) {
    const size_t n = text.size(), npos = std::u32string::npos;
    const char32_t c = text[i];
    const bool space_before = i == 0 || is_space(text[i - 1]);
    if (i == 0 && (c == U'#' || c == U'-' || c == U'*' || c == U'+' || c == U'>')) {
        size_t j = i;
        while (j < n && text[j] == c && j - i < 6) j++;
        size_t first = j;  // the first character after the mark and its spaces
        while (first < n && is_space(text[first])) first++;
        // "# 8 for Iowa State" (a test2016 caption) is a number sign, not a heading
        const bool heading = c == U'#' && first < n && is_alpha(text[first]);
        if (j < n && is_space(text[j]) && (heading || (c != U'#' && j == i + 1))) return j;
    }
    if (c == U'*' || c == U'_' || c == U'~') {
        size_t j = i;
        while (j < n && text[j] == c) j++;
        if (j - i > 3 || (c == U'~' && j - i != 2)) return npos;
        const bool opens = space_before && j < n && !is_space(text[j]);
        const bool closes = !space_before && (j == n || is_space(text[j]) || (!is_alnum(text[j]) && text[j] != c));
        return opens || closes ? j : npos;
    }
    if (c == U'`') {
        size_t j = i;
        while (j < n && text[j] == U'`') j++;
        const char32_t run = static_cast<char32_t>(j - i);
        if (state.unmatched_ticks.find(run) != std::u32string::npos) return npos;
        const size_t end = text.find(text.substr(i, j - i), j);
        if (end == npos) state.unmatched_ticks.push_back(run);
        return end == npos ? npos : end + (j - i);
    }
    if (c == U'[' && space_before) {
        if (!state.link_close_known || (state.link_close != npos && state.link_close <= i)) {
            state.link_close = text.find(U"](", i + 1);
            if (state.link_close != npos && text.find(U')', state.link_close) == npos) state.link_close = npos;
            state.link_close_known = true;
        }
        if (state.link_close == npos) return npos;
        state.link_open = true;
        return i + 1;
    }
    if (c == U']' && state.link_open && i + 1 < n && text[i + 1] == U'(') {
        const size_t end = text.find(U')', i);
        if (end == npos) return npos;
        state.link_open = false;
        return end + 1;
    }
    return npos;
}

// Whether a tag (UTF-8, as markup_tag_end found it) breaks the line in a browser, and so separates words.
bool breaks_line(std::string_view tag) {
    size_t b = tag.find_first_not_of("</");
    size_t e = tag.find_first_of(" \t\n/>", b);
    std::string name(tag.substr(b, e - b));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const char* const kBreaking[] = {"br", "p", "div", "li", "ul", "ol", "tr", "td", "th", "table", "hr",
                                            "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "section", "article"};
    return std::any_of(std::begin(kBreaking), std::end(kBreaking), [&](const char* n) { return name == n; });
}

// The character an HTML character reference at text[i] stands for ("&amp;", "&nbsp;", "&eacute;", "&#233;",
// "&#xE9;"), with its length; 0 where there is none (an unknown name is left as text).
char32_t html_reference(const std::u32string& text, size_t i, size_t& length) {
    if (text[i] != U'&') return 0;
    const size_t end = text.find(U';', i + 1);
    if (end == std::u32string::npos || end - i < 3 || end - i > 10) return 0;
    const std::u32string name = text.substr(i + 1, end - i - 1);
    length = end - i + 1;
    if (name[0] == U'#') {
        const bool hex = name.size() > 1 && (name[1] == U'x' || name[1] == U'X');
        uint32_t value = 0;
        size_t digits = 0;
        for (size_t k = hex ? 2 : 1; k < name.size(); k++, digits++) {
            const char32_t c = name[k];
            const int d = c >= U'0' && c <= U'9' ? static_cast<int>(c - U'0')
                          : hex && c >= U'a' && c <= U'f' ? static_cast<int>(c - U'a' + 10)
                          : hex && c >= U'A' && c <= U'F' ? static_cast<int>(c - U'A' + 10)
                                                           : -1;
            if (d < 0 || value > 0x10FFFF) return 0;
            value = value * (hex ? 16 : 10) + static_cast<uint32_t>(d);
        }
        // a code point a text may hold: not NUL, not a surrogate, not above U+10FFFF
        if (digits == 0 || value == 0 || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
        return value;
    }
    static const std::pair<const char32_t*, char32_t> kNamed[] = {
        {U"amp", U'&'}, {U"lt", U'<'}, {U"gt", U'>'}, {U"quot", U'"'}, {U"apos", U'\''}, {U"nbsp", U' '},
        {U"ndash", U'\u2013'}, {U"mdash", U'\u2014'}, {U"hellip", U'\u2026'}, {U"laquo", U'\u00AB'},
        {U"raquo", U'\u00BB'}, {U"ldquo", U'\u201C'}, {U"rdquo", U'\u201D'}, {U"bdquo", U'\u201E'},
        {U"lsquo", U'\u2018'}, {U"rsquo", U'\u2019'}, {U"euro", U'\u20AC'}, {U"pound", U'\u00A3'},
        {U"copy", U'\u00A9'}, {U"deg", U'\u00B0'}, {U"auml", U'\u00E4'}, {U"ouml", U'\u00F6'},
        {U"uuml", U'\u00FC'}, {U"Auml", U'\u00C4'}, {U"Ouml", U'\u00D6'}, {U"Uuml", U'\u00DC'},
        {U"szlig", U'\u00DF'}, {U"eacute", U'\u00E9'}, {U"egrave", U'\u00E8'}, {U"ecirc", U'\u00EA'},
        {U"euml", U'\u00EB'}, {U"agrave", U'\u00E0'}, {U"acirc", U'\u00E2'}, {U"ccedil", U'\u00E7'},
        {U"icirc", U'\u00EE'}, {U"iuml", U'\u00EF'}, {U"ocirc", U'\u00F4'}, {U"ucirc", U'\u00FB'},
        {U"ugrave", U'\u00F9'}, {U"Eacute", U'\u00C9'}, {U"oelig", U'\u0153'}};
    for (const auto& [n, c] : kNamed)
        if (name == n) return c;
    return 0;
}

}  // namespace

TakenOut take_out_asides(const std::u32string& text) {
    TakenOut out;
    std::u32string& kept = out.kept;
    std::vector<size_t> kept_at;  // of each aside: where in `kept` it was
    ScanState state;
    int words = 0;  // in `kept` so far (popping spaces never changes it)
    for (size_t i = 0; i < text.size();) {
        size_t reference_length = 0;
        if (const char32_t c = html_reference(text, i, reference_length)) {
            if (!is_space(c) && (kept.empty() || is_space(kept.back()))) words++;
            kept += c;  // "Tom &amp; Jerry" reads "Tom & Jerry"
            out.html = true;
            i += reference_length;
            continue;
        }
        size_t tag_end = markup_tag_end(text, i, state);
        out.html = out.html || tag_end != std::u32string::npos;
        if (tag_end == std::u32string::npos) tag_end = markdown_mark_end(text, i, state);
        if (tag_end != std::u32string::npos) {
            Aside aside{utf8_encode(text.substr(i, tag_end - i)), words};
            aside.glue_previous = i > 0 && !is_space(text[i - 1]);
            aside.glue_next = tag_end < text.size() && !is_space(text[tag_end]);
            // "a dog<br>runs" reads "a dog runs"; "a <b>big</b>dog" reads "a bigdog", as a browser shows it
            if (aside.glue_previous && aside.glue_next && breaks_line(aside.text)) kept += U' ';
            kept_at.push_back(kept.size());
            out.asides.push_back(std::move(aside));
            i = tag_end;
            continue;
        }
        if (!pictographic(text[i])) {
            if (!is_space(text[i]) && (kept.empty() || is_space(kept.back()))) words++;
            kept += text[i++];
            continue;
        }
        size_t end = i;
        while (end < text.size() && pictographic(text[end])) end++;
        // "beach 🏖️." reads "beach.": the space before the pictograph goes with it unless a space follows too
        while (!kept.empty() && is_space(kept.back()) && end < text.size() && !is_space(text[end])) kept.pop_back();
        for (size_t& at : kept_at) at = std::min(at, kept.size());
        kept_at.push_back(kept.size());
        out.asides.push_back({utf8_encode(text.substr(i, end - i)), words});
        i = end;
    }
    for (size_t k = 0; k < out.asides.size(); k++) {
        const std::u32string_view rest = std::u32string_view(kept).substr(kept_at[k]);
        out.asides[k].before_punctuation = !rest.empty() && std::all_of(rest.begin(), rest.end(), punctuation_or_space);
    }
    out.words = words;
    return out;
}

std::string put_back_asides(const std::string& translation, const std::vector<Aside>& asides, int source_words,
                            bool html) {
    std::vector<std::string> words;
    for (size_t i = 0; i < translation.size();) {
        const size_t end = std::min(translation.find(' ', i), translation.size());
        if (end > i) words.push_back(translation.substr(i, end - i));
        i = end + 1;
    }
    const int W = static_cast<int>(words.size());
    // The last word without its final punctuation ("Strand" of "Strand."), where asides before the source's final
    // punctuation go; French writes "plage !", whose "!" is a word of its own: they go before it.
    size_t cut = 0;
    if (W > 0) {
        const std::string& last = words.back();
        cut = last.size();
        while (cut > 0 && std::string_view(".!?;:,\"')]").find(last[cut - 1]) != std::string_view::npos) cut--;
    }
    const bool inside_last = W == 1 || (W > 1 && cut > 0);
    // Each aside's place in half-word steps: 2k before word k, 2W - 1 between the last word and its punctuation,
    // 2W at the end; never before the place of an aside that came before it, so tags stay well nested.
    std::vector<int> place(asides.size());
    int previous = 0;
    for (size_t i = 0; i < asides.size(); i++) {
        const Aside& a = asides[i];
        int p;
        if (W == 0) {
            p = 0;
        } else if (a.words_before >= source_words) {
            p = !a.before_punctuation ? 2 * W : inside_last ? 2 * W - 1 : 2 * (W - 1);
        } else {
            // source words follow it: before the last word at the latest
            const long k = std::lround(static_cast<double>(std::max(a.words_before, 0)) * W / source_words);
            p = 2 * static_cast<int>(std::clamp<long>(k, 0, W - 1));
        }
        place[i] = previous = std::max(p, previous);
    }
    // Pieces are joined with a space, but where a tag touched its neighbour in the source ("<b>Ein Hund</b>").
    std::string out;
    bool glued = true;  // nothing before the first piece
    auto add = [&](const std::string& piece, bool glue_previous, bool glue_next) {
        if (!glued && !glue_previous) out += ' ';
        out += piece;
        glued = glue_next;
    };
    auto add_text = [&](const std::string& piece, bool glue_previous) {
        if (!html) return add(piece, glue_previous, false);
        std::string escaped;
        for (char c : piece) escaped += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
        add(escaped, glue_previous, false);
    };
    size_t next = 0;  // the next aside to place
    auto add_asides_at = [&](int p) {
        for (; next < asides.size() && place[next] == p; next++)
            add(asides[next].text, asides[next].glue_previous, asides[next].glue_next);
    };
    for (int k = 0; k < W; k++) {
        add_asides_at(2 * k);
        if (k == W - 1 && inside_last && next < asides.size() && place[next] == 2 * W - 1) {
            if (cut > 0) add_text(words[k].substr(0, cut), false);
            add_asides_at(2 * W - 1);
            add_text(words[k].substr(cut), true);
        } else {
            add_text(words[k], false);
        }
    }
    add_asides_at(2 * W);
    return out;
}

}  // namespace attend
