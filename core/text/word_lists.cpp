#include "text/word_lists.h"

#include "error.h"
#include "text/utf8.h"

#include <map>

namespace attend {

WordList WordList::parse(std::string_view text, std::string_view name) {
    utf8_validate(text, std::string(name));
    WordList list;
    int line = 0;
    for (std::size_t start = 0; start < text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view item = text.substr(start, end - start);
        start = end + 1;
        line++;
        const std::size_t first = item.find_first_not_of(" \t\r");
        if (first == std::string_view::npos || item[first] == '#') continue;
        item = item.substr(first, item.find_last_not_of(" \t\r") + 1 - first);
        const std::string where = std::string(name) + ", line " + std::to_string(line) + ": ";
        if (item.find_first_of(" \t") != std::string_view::npos)
            throw Error(where + "\"" + std::string(item) + "\" holds a space: one word a line");
        if (!list.set_.insert(std::string(item)).second)
            throw Error(where + "\"" + std::string(item) + "\" is listed twice");
        list.words_.emplace_back(item);
    }
    return list;
}

namespace {

// data/lang/<name>.txt as {name, text} (cmake/word_lists.cmake).
const std::pair<std::string_view, std::string_view> kBuiltin[] = {
#include "word_lists_data.inc"
};

const std::map<std::string_view, WordList>& builtin_lists() {
    static const std::map<std::string_view, WordList> lists = [] {
        std::map<std::string_view, WordList> m;
        for (const auto& [name, text] : kBuiltin)
            m.emplace(name, WordList::parse(text, "data/lang/" + std::string(name) + ".txt"));
        return m;
    }();
    return lists;
}

}  // namespace

const WordList* find_word_list(std::string_view name) {
    const auto& lists = builtin_lists();
    const auto it = lists.find(name);
    return it == lists.end() ? nullptr : &it->second;
}

const WordList& word_list(std::string_view name) {
    const WordList* list = find_word_list(name);
    if (!list)
        throw Error("no word list named \"" + std::string(name) + "\" (data/lang/" + std::string(name) + ".txt)");
    return *list;
}

bool in_word_lists(const std::string& word, std::initializer_list<std::string_view> names) {
    for (std::string_view name : names)
        if (word_list(name).contains(word)) return true;
    return false;
}

const std::vector<std::pair<std::string_view, std::string_view>>& builtin_word_list_texts() {
    static const std::vector<std::pair<std::string_view, std::string_view>> texts(std::begin(kBuiltin),
                                                                                  std::end(kBuiltin));
    return texts;
}

}  // namespace attend
