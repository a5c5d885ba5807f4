#include "text/d2l_preprocess.h"

#include "error.h"
#include "text/case_mapping.h"
#include "text/utf8.h"

namespace attend {

std::string preprocess_nmt(std::string_view text) {
    std::u32string chars = utf8_decode(text);
    for (char32_t& c : chars) c = (c == 0x202F || c == 0xA0) ? U' ' : to_lower(c);
    std::u32string out;
    out.reserve(chars.size() + chars.size() / 8);
    for (std::size_t i = 0; i < chars.size(); ++i) {
        char32_t c = chars[i];
        bool punctuation = c == U',' || c == U'.' || c == U'!' || c == U'?';
        if (i > 0 && punctuation && chars[i - 1] != U' ') out.push_back(U' ');
        out.push_back(c);
    }
    return utf8_encode(out);
}

std::vector<std::string> split_words(std::string_view line) {
    std::vector<std::string> words;
    std::size_t start = 0;
    while (true) {
        std::size_t end = line.find(' ', start);
        if (end == std::string_view::npos) {
            words.emplace_back(line.substr(start));
            return words;
        }
        words.emplace_back(line.substr(start, end - start));
        start = end + 1;
    }
}

std::vector<int> truncate_pad(std::vector<int> line, int num_steps, int padding_token) {
    if (num_steps < 0) throw Error("truncate_pad: num_steps is " + std::to_string(num_steps) + " (expected >= 0)");
    line.resize(static_cast<std::size_t>(num_steps), padding_token);
    return line;
}

NmtArray build_array_nmt(const std::vector<std::vector<std::string>>& lines, const Vocab& vocab, int num_steps) {
    for (const char* needed : {"<pad>", "<eos>"})
        if (!vocab.contains(needed))
            throw Error(std::string("build_array_nmt: the vocabulary has no '") + needed + "' (expected it reserved)");
    const int pad = vocab["<pad>"], eos = vocab["<eos>"];
    NmtArray array;
    array.rows = static_cast<int>(lines.size());
    array.num_steps = num_steps;
    array.ids.reserve(lines.size() * static_cast<std::size_t>(num_steps));
    for (const auto& line : lines) {
        std::vector<int> ids = vocab.ids(line);
        ids.push_back(eos);
        ids = truncate_pad(std::move(ids), num_steps, pad);
        int valid = 0;
        for (int id : ids) valid += id != pad;
        array.valid_lens.push_back(valid);
        array.ids.insert(array.ids.end(), ids.begin(), ids.end());
    }
    return array;
}

}  // namespace attend
