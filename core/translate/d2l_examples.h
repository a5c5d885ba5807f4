// The seeds' check of a Tatoeba English -> French model (d2l, seed 000): translate four sentences greedily and
// score each against its reference with bleu(pred, label, k = 2), printed as
//   go . => va !,  bleu 1.000
#pragma once
#include <string>
#include <vector>

#include "translate/translator.h"

namespace attend {

struct D2lExample {
    std::string source, reference, translation;
    double bleu = 0;
};

// The seeds' engs and fras: go . / i lost . / he's calm . / i'm home . -> va ! / j'ai perdu . / il est calme . /
// je suis chez moi .
const std::vector<D2lExample>& d2l_examples();

// Translates each example (beam 1 = the seeds' predict_seq2seq, at most the model's num_steps tokens) and scores it.
std::vector<D2lExample> run_d2l_examples(const Translator& translator, int beam_size = 1);

// "go . => va !,  bleu 1.000" (the seeds' print: f'{eng} => {translation}, ', f'bleu {...:.3f}').
std::string format_d2l_example(const D2lExample& example);

}  // namespace attend
