// `attend bleu --ref REF --hyp HYP`: corpus BLEU-4 as sacreBLEU computes it with tokenize=none (both files
// already tokenized; .gz allowed), printed as sacreBLEU's score line.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "data/text_file.h"
#include "error.h"
#include "text/bleu.h"

namespace attend::cli {
namespace {

void run_bleu(const std::string& ref, const std::string& hyp, bool no_smoothing) {
    std::vector<std::string> references = read_lines(ref), hypotheses = read_lines(hyp);
    if (references.size() != hypotheses.size())
        throw Error("bleu: " + ref + " has " + std::to_string(references.size()) + " lines, " + hyp + " has " +
                    std::to_string(hypotheses.size()) + " (expected the same number of lines)");
    CorpusBleu score = corpus_bleu(hypotheses, references, no_smoothing ? BleuSmoothing::none : BleuSmoothing::exp);
    std::printf("%s\n", score.format().c_str());
}

CommandRegistrar registrar([](CLI::App& app) {
    auto ref = std::make_shared<std::string>();
    auto hyp = std::make_shared<std::string>();
    auto no_smoothing = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("bleu", "Corpus BLEU-4 of a hypothesis file against a reference file");
    cmd->add_option("--ref,-r", *ref, "Reference file, one tokenized sentence a line (plain or .gz)")->required();
    cmd->add_option("--hyp,-H", *hyp, "Hypothesis file, line-aligned with the reference (plain or .gz)")->required();
    cmd->add_flag("--no-smoothing", *no_smoothing, "multi-bleu.perl: a zero n-gram precision gives BLEU 0");
    cmd->callback([=] { run_bleu(*ref, *hyp, *no_smoothing); });
});

}  // namespace
}  // namespace attend::cli
