// The word lists compiled into the core are the files under data/lang/, as they are now: the data is what the
// rules read (cmake/word_lists.cmake regenerates the header when a file changes).
#include <doctest/doctest.h>

#include "text/word_lists.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace attend;

TEST_CASE("word lists: the built-in lists are data/lang/<lang>/<name>.txt, every file and nothing else") {
    const std::filesystem::path root = std::filesystem::path(ATTEND_SOURCE_DIR) / "data" / "lang";
    std::map<std::string, std::string> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".txt") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        std::string name = std::filesystem::relative(entry.path(), root).replace_extension().generic_string();
        files[name] = text.str();
    }
    REQUIRE(files.size() == builtin_word_list_texts().size());
    for (const auto& [name, text] : builtin_word_list_texts()) {
        CAPTURE(name);
        REQUIRE(files.count(std::string(name)) == 1);
        CHECK(files[std::string(name)] == text);
        CHECK(word_list(name).words() == WordList::parse(files[std::string(name)]).words());
    }
}
