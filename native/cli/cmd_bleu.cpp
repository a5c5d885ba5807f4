// `attend bleu --ref REF --hyp HYP`: corpus BLEU-4 and/or chrF2 as sacreBLEU computes them, each printed as
// sacreBLEU's score line followed by the metric's name and signature as sacreBLEU 2.x cites them
// ("BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:attend-0.1.0"), so a reader can tell how the
// number was computed. The default scores already-tokenized files (tokenize=none, as multi-bleu.perl);
// `--tokenize 13a` scores detokenized text the way sacreBLEU does by default, `--tokenize zh` Chinese text as
// sacreBLEU does for it, `--lowercase` ignores case. chrF2 always works on the text as given (whitespace
// removed), like sacreBLEU's chrF.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "data/text_file.h"
#include "error.h"
#include "text/bleu.h"
#include "text/case_mapping.h"
#include "text/chrf.h"

namespace attend::cli {
namespace {

struct BleuArgs {
    std::string ref, hyp, tokenize = "none", metric = "bleu";
    bool no_smoothing = false, lowercase = false;
};

void run_bleu(const BleuArgs& args) {
    std::vector<std::string> references = read_lines(args.ref), hypotheses = read_lines(args.hyp);
    if (references.size() != hypotheses.size())
        throw Error("bleu: " + args.ref + " has " + std::to_string(references.size()) + " lines, " + args.hyp +
                    " has " + std::to_string(hypotheses.size()) + " (expected the same number of lines)");
    if (args.metric == "bleu" || args.metric == "all") {
        BleuOptions options;
        options.tokenize = parse_bleu_tokenize(args.tokenize);
        options.lowercase = args.lowercase;
        options.smoothing = args.no_smoothing ? BleuSmoothing::none : BleuSmoothing::exp;
        std::printf("%s\n", corpus_bleu(hypotheses, references, options).format().c_str());
        std::printf("BLEU|%s\n", bleu_signature(options).c_str());
    }
    if (args.metric == "chrf" || args.metric == "all") {
        if (args.lowercase) {
            for (std::string& line : hypotheses) line = lowercase(line);
            for (std::string& line : references) line = lowercase(line);
        }
        std::printf("%s\n", corpus_chrf(hypotheses, references).format().c_str());
        std::printf("chrF2|%s\n", chrf_signature(args.lowercase).c_str());
    }
}

CommandRegistrar registrar([](CLI::App& app) {
    auto args = std::make_shared<BleuArgs>();
    CLI::App* cmd = app.add_subcommand("bleu", "Corpus BLEU-4 and chrF2 of a hypothesis file against a reference file");
    cmd->add_option("--ref,-r", args->ref, "Reference file, one sentence a line (plain or .gz)")->required();
    cmd->add_option("--hyp,-H", args->hyp, "Hypothesis file, line-aligned with the reference (plain or .gz)")->required();
    cmd->add_option("--tokenize", args->tokenize,
                    "BLEU tokenizer: none (the files are tokenized), 13a (sacreBLEU's default, for detokenized text) "
                    "or zh (sacreBLEU's for Chinese: each Chinese character a token, then 13a)")
        ->check(CLI::IsMember({"none", "13a", "zh"}))
        ->capture_default_str();
    cmd->add_flag("--lowercase,--lc", args->lowercase, "Lowercase both sides before scoring");
    cmd->add_option("--metric", args->metric, "bleu, chrf, or all (each a score line and a signature line)")
        ->check(CLI::IsMember({"bleu", "chrf", "all"}))
        ->capture_default_str();
    cmd->add_flag("--no-smoothing", args->no_smoothing, "multi-bleu.perl: a zero n-gram precision gives BLEU 0");
    cmd->callback([args] { run_bleu(*args); });
});

}  // namespace
}  // namespace attend::cli
