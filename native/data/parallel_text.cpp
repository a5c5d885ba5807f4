#include "data/parallel_text.h"

#include "data/text_file.h"
#include "error.h"

namespace attend {

ParallelText load_parallel_text(const std::string& source_path, const std::string& target_path) {
    ParallelText text;
    text.source_path = source_path;
    text.target_path = target_path;
    text.source = read_lines(source_path);
    text.target = read_lines(target_path);
    if (text.source.size() != text.target.size())
        throw Error("parallel files differ in length: " + source_path + " has " + std::to_string(text.source.size()) +
                    " lines, " + target_path + " has " + std::to_string(text.target.size()) +
                    " (expected the same number of lines)");
    return text;
}

}  // namespace attend
