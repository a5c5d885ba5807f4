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

// Places in a translation of W words, in thirds of a word: 3k before word k, 3k + 1 between its letters and its
// trailing punctuation ("Strand|."), 3W at the end.
struct Places {
    std::vector<int> place;
    std::vector<bool> glue_previous, glue_next;
};

// Where the asides that open or close on an aligned word go: before the first translation word aligned to the
// source word they open on, after the letters of the last one aligned to the word they close on. An opening mark
// and the closing one that answers it (the nearest unanswered before it) span source words i..j and go around all
// of the translation words aligned to any of them. A tag placed so touches the word it marks, and only that:
// what it touched in the source ("</b>," touched a comma) may not be next to it now. A pair that holds the whole
// sentence ("<p>...</p>", "_..._") keeps its place at the start and the end.
// The places start from `share`, each aside's place by the share of the words.
Places place_by_alignment(const Places& share, const std::vector<Aside>& asides, const std::vector<int>& opener,
                          const WordAlignment& alignment, int W) {
    const int source_words = static_cast<int>(alignment.first.size());
    Places places = share;
    auto valid = [&](int k) { return k >= 0 && k < source_words && alignment.first[k] >= 0 && alignment.last[k] >= 0; };
    auto opens_at = [&](size_t i, int first) {
        places.place[i] = 3 * std::clamp(first, 0, W - 1);
        places.glue_previous[i] = false;
        places.glue_next[i] = true;
    };
    auto closes_at = [&](size_t i, int last) {
        places.place[i] = 3 * std::clamp(last, 0, W - 1) + 1;
        places.glue_previous[i] = true;
        places.glue_next[i] = false;
    };
    auto keep_share = [&](size_t i) {
        places.place[i] = share.place[i];
        places.glue_previous[i] = share.glue_previous[i];
        places.glue_next[i] = share.glue_next[i];
    };
    for (size_t i = 0; i < asides.size(); i++) {
        const Aside& a = asides[i];
        if (a.opens && valid(a.word)) opens_at(i, alignment.first[a.word]);
        if (!a.closes) continue;
        if (valid(a.word)) closes_at(i, alignment.last[a.word]);
        if (opener[i] < 0) continue;
        const size_t o = static_cast<size_t>(opener[i]);
        const int from = asides[o].word, to = a.word;
        if (to < 0 || (from == 0 && to == source_words - 1)) {
            keep_share(o);  // the whole sentence
            keep_share(i);
            continue;
        }
        if (from > to) continue;
        int first = -1, last = -1;
        for (int k = from; k <= to; k++) {
            if (!valid(k)) continue;
            first = first < 0 ? alignment.first[k] : std::min(first, alignment.first[k]);
            last = std::max(last, alignment.last[k]);
        }
        if (first < 0) {
            // nothing of the span aligned ("cowboy <b>hat</b>" gave "Cowboyhut"): around the word at the
            // opener's share, not around nothing
            keep_share(o);
            closes_at(i, share.place[o] / 3);
            continue;
        }
        opens_at(o, first);
        closes_at(i, last);
    }
    return places;
}

}  // namespace

TakenOut take_out_asides(const std::u32string& text) {
    TakenOut out;
    std::u32string& kept = out.kept;
    std::vector<size_t> kept_at;  // of each aside: where in `kept` it was
    std::vector<bool> apart;      // of each aside: it stands apart from the words (pictographs, code spans)
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
            apart.push_back(text[i] == U'`');  // a code span is a word of its own, not a mark on one
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
        apart.push_back(true);
        out.asides.push_back({utf8_encode(text.substr(i, end - i)), words});
        i = end;
    }
    for (size_t k = 0; k < out.asides.size(); k++) {
        Aside& a = out.asides[k];
        const size_t at = kept_at[k];
        const std::u32string_view rest = std::u32string_view(kept).substr(at);
        a.before_punctuation = !rest.empty() && std::all_of(rest.begin(), rest.end(), punctuation_or_space);
        if (apart[k]) continue;
        const bool space_before = at == 0 || is_space(kept[at - 1]), space_after = at == kept.size() || is_space(kept[at]);
        if (space_before && !space_after) {
            a.opens = true;  // "<b>dog"
            a.word = a.words_before;
        } else if (!space_before && space_after) {
            a.closes = true;  // "dog</b>", or "dog.</p>" at the end: the sentence's
            a.word = at == kept.size() && !is_alnum(kept[at - 1]) ? -1 : a.words_before - 1;
        } else if (!space_before && !space_after) {
            // inside a word: "(<b>dog" opens on it, "dog</b>." closes on it (emphasis inside a word only closes)
            const bool opening_tag = a.text.front() == '<' && a.text.size() > 1 && a.text[1] != '/' && a.text[1] != '!';
            (opening_tag ? a.opens : a.closes) = true;
            a.word = a.words_before - 1;
        }
    }
    out.words = words;
    return out;
}

std::string put_back_asides(const std::string& translation, const std::vector<Aside>& asides, int source_words,
                            bool html, const WordAlignment* alignment) {
    std::vector<std::string> words;
    for (size_t i = 0; i < translation.size();) {
        const size_t end = std::min(translation.find(' ', i), translation.size());
        if (end > i) words.push_back(translation.substr(i, end - i));
        i = end + 1;
    }
    const int W = static_cast<int>(words.size());
    // Where each word's trailing punctuation starts ("Strand" of "Strand."); French writes "plage !", whose "!" is
    // a word of its own (cut 0).
    std::vector<size_t> cut(W);
    for (int k = 0; k < W; k++) {
        cut[k] = words[k].size();
        while (cut[k] > 0 && std::string_view(".!?;:,\"')]").find(words[k][cut[k] - 1]) != std::string_view::npos)
            cut[k]--;
    }
    const int n = static_cast<int>(asides.size());
    Places places{std::vector<int>(n), std::vector<bool>(n), std::vector<bool>(n)};
    for (int i = 0; i < n; i++) {
        const Aside& a = asides[i];
        places.glue_previous[i] = a.glue_previous;
        places.glue_next[i] = a.glue_next;
        if (W == 0) {
            places.place[i] = 0;
        } else if (a.words_before >= source_words) {
            // at the end, or before the final punctuation where the source had it there ("plage</b> !")
            places.place[i] = !a.before_punctuation ? 3 * W : W > 1 && cut[W - 1] == 0 ? 3 * (W - 1) : 3 * (W - 1) + 1;
        } else {
            // source words follow it: before the last word at the latest
            const long k = std::lround(static_cast<double>(std::max(a.words_before, 0)) * W / source_words);
            places.place[i] = 3 * static_cast<int>(std::clamp<long>(k, 0, W - 1));
        }
    }
    // The opening mark each closing one answers: the nearest before it not yet answered.
    std::vector<int> opener(n, -1);
    {
        std::vector<int> open;
        for (int i = 0; i < n; i++) {
            if (asides[i].opens) open.push_back(i);
            if (asides[i].closes && !open.empty()) {
                opener[i] = open.back();
                open.pop_back();
            }
        }
    }
    // Never before the place of an aside that came before it, so tags stay well nested; and a pair around words in
    // the source holds a word of the translation where one follows its opener. Placed by alignment, an opener
    // pushed into a word's punctuation starts at the next word; where the words of two pairs fall in the other
    // order and none is left for the second ("**a** <i>house</i>" gave "**Hauses** <i></i>."), settle() says
    // false, and every aside goes back to its share.
    auto settle = [&](Places& p, bool aligned) {
        int previous = 0;
        for (int i = 0; i < n; i++) {
            int& at = p.place[i];
            at = std::max(at, previous);
            if (aligned && asides[i].opens && asides[i].word >= 0 && at % 3 == 1) {
                if (at / 3 + 1 >= W) return false;
                at += 2;
            }
            const int o = opener[i];
            if (o >= 0 && asides[o].word >= 0 && asides[i].word >= asides[o].word) {
                const int from = p.place[o];
                const int word = from % 3 == 0 ? from / 3 : from / 3 + 1;  // the first word after the opener
                if (at < 3 * word + 1) {
                    if (word >= W) {
                        if (aligned) return false;
                        // no word left: the pair holds nothing, touching what is before it ("Hauses**<i></i>.")
                        p.glue_previous[o] = p.glue_previous[i] = true;
                        p.glue_next[i] = false;
                    } else {
                        at = 3 * word + 1;
                        p.glue_previous[i] = true;
                        p.glue_next[i] = false;
                    }
                }
            }
            previous = at;
        }
        return true;
    };
    const Places share = places;
    const bool aligned = alignment && W > 0 && static_cast<int>(alignment->first.size()) == source_words &&
                         static_cast<int>(alignment->last.size()) == source_words;
    if (aligned) places = place_by_alignment(share, asides, opener, *alignment, W);
    if (!settle(places, aligned)) {
        places = share;
        settle(places, false);
    }

    // Pieces are joined with a space, but where a tag touches its neighbour ("<b>Ein Hund</b>").
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
    int next = 0;  // the next aside to place
    auto add_asides_at = [&](int p) {
        for (; next < n && places.place[next] == p; next++)
            add(asides[next].text, places.glue_previous[next], places.glue_next[next]);
    };
    for (int k = 0; k < W; k++) {
        add_asides_at(3 * k);
        if (next < n && places.place[next] == 3 * k + 1) {
            if (cut[k] > 0) add_text(words[k].substr(0, cut[k]), false);
            add_asides_at(3 * k + 1);
            if (cut[k] < words[k].size()) add_text(words[k].substr(cut[k]), cut[k] > 0);
        } else {
            add_text(words[k], false);
        }
    }
    for (; next < n; next++) add(asides[next].text, places.glue_previous[next], places.glue_next[next]);  // at 3W
    return out;
}

}  // namespace attend
