#include "data/parallel_corpus.h"

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "data/line_reader.h"
#include "data/text_file.h"
#include "error.h"
#include "text/utf8.h"

namespace attend {

namespace {

std::vector<std::string_view> split(std::string_view s, char at) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = s.find(at, start);
        parts.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) return parts;
        start = end + 1;
    }
}

int parse_column(std::string_view text, std::string_view spec) {
    int value = 0;
    for (char c : text) {
        if (c < '0' || c > '9' || value > 1000) value = -1;
        if (value < 0) break;
        value = value * 10 + (c - '0');
    }
    if (text.empty() || value < 1 || value > 1000)
        throw Error("corpus '" + std::string(spec) + "': columns=" + std::string(text) +
                    " is not a column number (expected 1-based numbers, e.g. columns=1,2)");
    return value;
}

// The text with each tab made a space, in `buffer`.
std::string_view untabbed(std::string_view text, std::string& buffer) {
    buffer.assign(text);
    std::replace(buffer.begin(), buffer.end(), '\t', ' ');
    return buffer;
}

// A side's text with the spaces and tabs around it removed.
std::string_view trimmed(std::string_view s) {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return s;
}

}  // namespace

const char* skip_reason_name(SkipReason reason) {
    switch (reason) {
        case SkipReason::empty_side: return "with an empty side";
        case SkipReason::invalid_utf8: return "with invalid UTF-8";
        case SkipReason::too_long: return "longer than the line limit";
        case SkipReason::missing_column: return "without the named columns";
        case SkipReason::count: break;
    }
    return "?";
}

std::int64_t SkipCounts::total() const {
    std::int64_t n = 0;
    for (std::int64_t c : by_reason) n += c;
    return n;
}

std::string SkipCounts::describe() const {
    if (total() == 0) return "none skipped";
    std::string out = std::to_string(total()) + " skipped:";
    const char* sep = " ";
    for (int r = 0; r < static_cast<int>(SkipReason::count); r++) {
        if (by_reason[r] == 0) continue;
        out += sep + std::to_string(by_reason[r]) + " " + skip_reason_name(static_cast<SkipReason>(r));
        sep = ", ";
    }
    return out;
}

CorpusSource parse_corpus_source(std::string_view spec) {
    CorpusSource s;
    s.spec = std::string(spec);
    if (spec.empty()) throw Error("corpus: an empty name (expected FILE.tsv or SOURCE_FILE,TARGET_FILE)");
    // Options start at the first ':' followed by a key and '='; a path may hold ':' itself.
    std::string_view files = spec, options;
    for (std::size_t colon = spec.find(':'); colon != std::string_view::npos; colon = spec.find(':', colon + 1)) {
        std::size_t k = colon + 1;
        while (k < spec.size() && ((spec[k] >= 'a' && spec[k] <= 'z') || spec[k] == '_')) k++;
        if (k > colon + 1 && k < spec.size() && spec[k] == '=') {
            files = spec.substr(0, colon);
            options = spec.substr(colon + 1);
            break;
        }
    }
    for (std::string_view f : split(files, ',')) {
        if (f.empty()) throw Error("corpus '" + s.spec + "': an empty file name (expected FILE.tsv or A,B)");
        s.files.emplace_back(f);
    }
    if (s.files.size() > 2)
        throw Error("corpus '" + s.spec + "': " + std::to_string(s.files.size()) +
                    " files (expected one TSV file or two aligned files, SOURCE,TARGET)");
    bool columns_given = false;
    if (!options.empty()) {
        for (std::string_view option : split(options, ':')) {
            const std::size_t eq = option.find('=');
            if (eq == std::string_view::npos)
                throw Error("corpus '" + s.spec + "': option '" + std::string(option) + "' is not key=value");
            const std::string_view key = option.substr(0, eq), value = option.substr(eq + 1);
            if (key == "columns") {
                const std::vector<std::string_view> cols = split(value, ',');
                if (cols.size() != 2)
                    throw Error("corpus '" + s.spec + "': columns=" + std::string(value) +
                                " (expected two column numbers, source first: columns=1,2)");
                s.source_column = parse_column(cols[0], spec);
                s.target_column = parse_column(cols[1], spec);
                if (s.source_column == s.target_column)
                    throw Error("corpus '" + s.spec + "': the source and target columns are the same");
                columns_given = true;
            } else if (key == "weight") {
                char* end = nullptr;
                const std::string v(value);
                errno = 0;
                s.weight = std::strtod(v.c_str(), &end);
                if (v.empty() || end != v.c_str() + v.size() || errno != 0 || !std::isfinite(s.weight) ||
                    s.weight <= 0 || s.weight > 1000)
                    throw Error("corpus '" + s.spec + "': weight=" + v +
                                " (expected a number above 0 and at most 1000: how often each pair is seen)");
            } else {
                throw Error("corpus '" + s.spec + "': unknown option '" + std::string(key) +
                            "' (expected columns=SRC,TGT or weight=W)");
            }
        }
    }
    if (columns_given && !s.is_tsv())
        throw Error("corpus '" + s.spec + "': columns= is for a TSV file, not for two aligned files");
    return s;
}

void to_json(nlohmann::json& j, const CorpusSourceReport& r) {
    nlohmann::json files = nlohmann::json::array();
    for (std::size_t i = 0; i < r.source.files.size(); i++) {
        char crc[16];
        std::snprintf(crc, sizeof crc, "%08x", i < r.file_crc32.size() ? r.file_crc32[i] : 0u);
        files.push_back({{"path", r.source.files[i]},
                         {"bytes", i < r.file_bytes.size() ? r.file_bytes[i] : 0},
                         {"crc32", crc}});
    }
    nlohmann::json skipped = nlohmann::json::object();
    skipped["empty_side"] = r.skipped[SkipReason::empty_side];
    skipped["invalid_utf8"] = r.skipped[SkipReason::invalid_utf8];
    skipped["too_long"] = r.skipped[SkipReason::too_long];
    skipped["missing_column"] = r.skipped[SkipReason::missing_column];
    j = {{"spec", r.source.spec}, {"files", files}, {"lines", r.lines}, {"pairs", r.pairs}, {"skipped", skipped}};
    if (r.source.is_tsv()) j["columns"] = {r.source.source_column, r.source.target_column};
    if (r.source.weight != 1) j["weight"] = r.source.weight;
}

CorpusSourceReport read_corpus_source(const CorpusSource& source, const PairCallback& pair,
                                      const CorpusReadOptions& options) {
    CorpusSourceReport report;
    report.source = source;
    std::string src_buffer, tgt_buffer;
    auto offer = [&](std::string_view src, std::string_view tgt, std::int64_t line) {
        if (src.size() > options.max_line_bytes || tgt.size() > options.max_line_bytes) {
            report.skipped[SkipReason::too_long]++;
            return;
        }
        if (utf8_find_invalid(src) != std::string::npos || utf8_find_invalid(tgt) != std::string::npos) {
            report.skipped[SkipReason::invalid_utf8]++;
            return;
        }
        src = trimmed(src);
        tgt = trimmed(tgt);
        // A tab inside a line of an aligned file is white space like any other; kept, it would split the pair
        // where it is written as TSV (the run's valid.tsv).
        if (src.find('\t') != std::string_view::npos) src = untabbed(src, src_buffer);
        if (tgt.find('\t') != std::string_view::npos) tgt = untabbed(tgt, tgt_buffer);
        if (src.empty() || tgt.empty()) {
            report.skipped[SkipReason::empty_side]++;
            return;
        }
        report.pairs++;
        pair(src, tgt, line);
    };

    std::string a, b;
    if (source.is_tsv()) {
        // A line is held up to a bound that the columns it needs could fill; a longer one is skipped, never held.
        const std::size_t need = static_cast<std::size_t>(std::max(source.source_column, source.target_column));
        LineReader in(source.files[0], LineReader::Nul::error, (options.max_line_bytes + 1) * need + 64 * 1024);
        std::vector<std::string_view> cols;
        while (in.next(a)) {
            if (in.cut()) {
                report.skipped[SkipReason::too_long]++;
                continue;
            }
            cols = split(a, '\t');
            if (cols.size() < need) {
                report.skipped[SkipReason::missing_column]++;
                continue;
            }
            offer(cols[source.source_column - 1], cols[source.target_column - 1], in.lines());
        }
        report.lines = in.lines();
        report.file_bytes = {in.bytes()};
        report.file_crc32 = {in.crc32()};
    } else {
        LineReader src(source.files[0], LineReader::Nul::error, options.max_line_bytes + 1),
            tgt(source.files[1], LineReader::Nul::error, options.max_line_bytes + 1);
        while (true) {
            const bool has_a = src.next(a), has_b = tgt.next(b);
            if (has_a != has_b) {
                // Count the rest of the longer file, so the message gives both counts.
                LineReader& longer = has_a ? src : tgt;
                std::string& rest = has_a ? a : b;
                while (longer.next(rest)) {
                }
                throw Error("corpus '" + source.spec + "': " + source.files[0] + " has " + std::to_string(src.lines()) +
                            " lines, " + source.files[1] + " has " + std::to_string(tgt.lines()) +
                            " (expected the same number: line i of one is the translation of line i of the other)");
            }
            if (!has_a) break;
            offer(a, b, src.lines());
        }
        report.lines = src.lines();
        report.file_bytes = {src.bytes(), tgt.bytes()};
        report.file_crc32 = {src.crc32(), tgt.crc32()};
    }
    if (report.pairs == 0 && report.lines > 0 && report.skipped.total() > 0)
        throw Error("corpus '" + source.spec + "': no usable pair in " + std::to_string(report.lines) + " lines (" +
                    report.skipped.describe() + ")" +
                    (report.skipped[SkipReason::missing_column] == report.lines
                         ? ": is it tab-separated, with the columns named by columns=SRC,TGT?"
                         : ""));
    if (report.lines == 0) throw Error("corpus '" + source.spec + "': " + source.files[0] + " is empty");
    return report;
}

}  // namespace attend
