// A parallel corpus read from two line-aligned files: line i of the source translates line i of the target.
#pragma once
#include <string>
#include <vector>

namespace attend {

struct ParallelText {
    std::string source_path, target_path;
    std::vector<std::string> source, target;
};

// Reads both files (plain or .gz). Different line counts throw attend::Error naming both files and counts.
ParallelText load_parallel_text(const std::string& source_path, const std::string& target_path);

}  // namespace attend
