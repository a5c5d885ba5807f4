#include "translate/d2l_examples.h"

#include <cstdio>

#include "text/bleu.h"

namespace attend {

const std::vector<D2lExample>& d2l_examples() {
    static const std::vector<D2lExample> examples{{"go .", "va !", "", 0},
                                                  {"i lost .", "j'ai perdu .", "", 0},
                                                  {"he's calm .", "il est calme .", "", 0},
                                                  {"i'm home .", "je suis chez moi .", "", 0}};
    return examples;
}

std::vector<D2lExample> run_d2l_examples(const Translator& translator, int beam_size) {
    TranslationOptions options;
    options.beam_size = beam_size;
    std::vector<D2lExample> out = d2l_examples();
    for (D2lExample& e : out) {
        e.translation = translator.translate(e.source, options).tokenized;
        e.bleu = bleu(e.translation, e.reference, 2);
    }
    return out;
}

std::string format_d2l_example(const D2lExample& e) {
    char score[32];
    std::snprintf(score, sizeof score, "%.3f", e.bleu);
    return e.source + " => " + e.translation + ",  bleu " + score;
}

}  // namespace attend
