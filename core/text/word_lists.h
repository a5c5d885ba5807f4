// Small word lists of a language that the text rules read: the articles, given names and verbs that copy-through's
// name rules look for (translate/copy_through.cpp), the German words that begin a clause in lower case
// (translate/clause_join.cpp), the closed-class words the omission check skips (translate/omissions.cpp). They are
// data: data/lang/<lang>/<name>.txt in the repository ("mul" for lists of several languages), each file saying what
// its list is for and where it came from, compiled into the core by cmake/word_lists.cmake (native and WebAssembly
// alike), so that the core never opens a file. The core parses their text as it does Moses' non-breaking prefixes.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace attend {

class WordList {
public:
    WordList() = default;
    // One word a line; a line that starts with '#' is a comment, and an empty one is skipped; spaces, tabs and a
    // carriage return around a word are not part of it. Throws attend::Error naming `name` and the line for a word
    // with a space inside, a word listed twice, or invalid UTF-8.
    static WordList parse(std::string_view text, std::string_view name = "word list");

    bool contains(const std::string& word) const { return set_.count(word) > 0; }
    const std::vector<std::string>& words() const { return words_; }  // in the file's order
    std::size_t size() const { return words_.size(); }

private:
    std::vector<std::string> words_;
    std::unordered_set<std::string> set_;
};

// The built-in list `name` ("de/articles": data/lang/de/articles.txt). Throws attend::Error when there is none.
const WordList& word_list(std::string_view name);
// The same, or nullptr where there is none (a language without that list).
const WordList* find_word_list(std::string_view name);
// Whether any of the built-in lists `names` holds `word`.
bool in_word_lists(const std::string& word, std::initializer_list<std::string_view> names);

// The built-in lists as the build read them: {name, the file's text}, in order of name.
const std::vector<std::pair<std::string_view, std::string_view>>& builtin_word_list_texts();

}  // namespace attend
