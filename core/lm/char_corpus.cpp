#include "lm/char_corpus.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "error.h"

namespace attend {

namespace {
bool ascii_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

void check_sizes(const char* what, int batch, int steps) {
    if (batch <= 0 || steps <= 0)
        throw Error(std::string(what) + ": batch size and number of steps must be positive (got " +
                    std::to_string(batch) + ", " + std::to_string(steps) + ")");
}
}  // namespace

std::string d2l_clean_line(const std::string& line) {
    std::string out;
    bool gap = false;  // a run of non-letters since the last letter
    for (char c : line) {
        if (!ascii_letter(c)) {
            gap = true;
            continue;
        }
        if (gap && !out.empty()) out += ' ';
        gap = false;
        out += char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    return out;
}

std::vector<std::string> d2l_clean_lines(const std::string& raw) {
    // Python reads text with universal newlines: "\r\n" and a lone "\r" end a line too.
    std::string text;
    text.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '\r') {
            text += '\n';
            if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
        } else {
            text += raw[i];
        }
    }
    std::vector<std::string> lines;
    if (text.empty()) return lines;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        // Python's readlines() gives no line after a final '\n'.
        if (end == text.size() && start == text.size() && !lines.empty()) break;
        lines.push_back(d2l_clean_line(text.substr(start, end - start)));
        start = end + 1;
    }
    return lines;
}

Vocab char_vocab(const std::vector<std::string>& lines) {
    std::vector<std::vector<std::string>> tokens;
    tokens.reserve(lines.size());
    for (const std::string& line : lines) {
        std::vector<std::string> chars;
        for (char c : line) chars.emplace_back(1, c);
        tokens.push_back(std::move(chars));
    }
    return Vocab(tokens);
}

std::vector<int> char_corpus(const std::vector<std::string>& lines, const Vocab& vocab) {
    std::vector<int> ids;
    for (const std::string& line : lines)
        for (char c : line) ids.push_back(vocab[std::string(1, c)]);
    return ids;
}

std::vector<LmBatch> seq_data_iter_sequential(const std::vector<int>& corpus, int batch, int steps, int offset) {
    check_sizes("seq_data_iter_sequential", batch, steps);
    if (offset < 0 || offset > steps)
        throw Error("seq_data_iter_sequential: offset " + std::to_string(offset) + " is outside [0, " +
                    std::to_string(steps) + "]");
    const long n = long(corpus.size());
    const long num_tokens = n - offset - 1 >= 0 ? ((n - offset - 1) / batch) * batch : 0;
    const long row = num_tokens / batch;  // Xs.reshape(batch_size, -1)
    const long num_batches = row / steps;
    std::vector<LmBatch> out;
    for (long i = 0; i < num_batches * steps; i += steps) {
        LmBatch b{batch, steps, std::vector<int>(size_t(batch) * steps), std::vector<int>(size_t(batch) * steps)};
        for (int r = 0; r < batch; ++r)
            for (int t = 0; t < steps; ++t) {
                const long pos = offset + r * row + i + t;
                b.X[size_t(r) * steps + t] = corpus[size_t(pos)];
                b.Y[size_t(r) * steps + t] = corpus[size_t(pos + 1)];
            }
        out.push_back(std::move(b));
    }
    return out;
}

std::vector<LmBatch> seq_data_iter_random(const std::vector<int>& corpus, int batch, int steps, int offset,
                                          const std::vector<int>& order) {
    check_sizes("seq_data_iter_random", batch, steps);
    if (offset < 0 || offset > steps - 1)
        throw Error("seq_data_iter_random: offset " + std::to_string(offset) + " is outside [0, " +
                    std::to_string(steps - 1) + "]");
    const long n = long(corpus.size()) - offset;
    const long num_subseqs = n - 1 >= 0 ? (n - 1) / steps : 0;
    if (long(order.size()) != num_subseqs)
        throw Error("seq_data_iter_random: order has " + std::to_string(order.size()) + " entries, expected " +
                    std::to_string(num_subseqs) + " (one per subsequence)");
    std::vector<char> seen(size_t(num_subseqs), 0);
    for (int k : order) {
        if (k < 0 || k >= num_subseqs || seen[size_t(k)])
            throw Error("seq_data_iter_random: order is not a permutation of [0, " + std::to_string(num_subseqs) + ")");
        seen[size_t(k)] = 1;
    }
    const long num_batches = num_subseqs / batch;
    std::vector<LmBatch> out;
    for (long i = 0; i < num_batches * batch; i += batch) {
        LmBatch b{batch, steps, std::vector<int>(size_t(batch) * steps), std::vector<int>(size_t(batch) * steps)};
        for (int r = 0; r < batch; ++r) {
            const long start = offset + long(order[size_t(i + r)]) * steps;
            for (int t = 0; t < steps; ++t) {
                b.X[size_t(r) * steps + t] = corpus[size_t(start + t)];
                b.Y[size_t(r) * steps + t] = corpus[size_t(start + t + 1)];
            }
        }
        out.push_back(std::move(b));
    }
    return out;
}

int lm_draw_offset(uint64_t seed, int max_offset) {
    std::mt19937_64 gen(seed);
    return int(gen() % uint64_t(max_offset + 1));
}

std::vector<int> lm_draw_order(uint64_t seed, int n) {
    std::vector<int> order(size_t(std::max(n, 0)));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 gen(seed ^ 0x5DEECE66Dull);
    for (int i = n - 1; i > 0; --i) std::swap(order[size_t(i)], order[size_t(gen() % uint64_t(i + 1))]);
    return order;
}

}  // namespace attend
