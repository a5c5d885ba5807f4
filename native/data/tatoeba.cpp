#include "data/tatoeba.h"

#include "data/text_file.h"
#include "error.h"

namespace attend {

std::string tatoeba_path(const std::string& data_dir) { return data_dir + "/tatoeba/d2l/fra.txt.gz"; }

TatoebaPairs read_tatoeba(const std::string& path, std::size_t num_examples) {
    std::vector<std::string> lines = read_lines(path);
    TatoebaPairs pairs;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (num_examples && pairs.english.size() == num_examples) break;
        const std::string& line = lines[i];
        if (line.empty()) continue;
        std::size_t tab = line.find('\t');
        if (tab == std::string::npos)
            throw Error(path + " line " + std::to_string(i + 1) + ": no tab (expected English<TAB>French[<TAB>attribution])");
        std::size_t end = line.find('\t', tab + 1);
        if (end == std::string::npos) end = line.size();
        pairs.english.push_back(line.substr(0, tab));
        pairs.french.push_back(line.substr(tab + 1, end - tab - 1));
    }
    return pairs;
}

NmtData load_data_nmt(const std::string& path, int num_steps, std::size_t num_examples) {
    TatoebaPairs pairs = read_tatoeba(path, num_examples);
    NmtData data;
    for (std::size_t i = 0; i < pairs.english.size(); ++i) {
        // d2l preprocesses the whole file: a line's first character follows a newline, not a space.
        std::string english = preprocess_nmt(i == 0 ? pairs.english[i] : "\n" + pairs.english[i]);
        if (i > 0) english.erase(0, 1);
        data.source.push_back(split_words(english));
        data.target.push_back(split_words(preprocess_nmt("\t" + pairs.french[i]).substr(1)));
    }
    const std::vector<std::string> reserved = {"<pad>", "<bos>", "<eos>"};
    data.src_vocab = Vocab(data.source, 2, reserved);
    data.tgt_vocab = Vocab(data.target, 2, reserved);
    data.src_array = build_array_nmt(data.source, data.src_vocab, num_steps);
    data.tgt_array = build_array_nmt(data.target, data.tgt_vocab, num_steps);
    return data;
}

}  // namespace attend
