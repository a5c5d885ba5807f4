// attend lm train | sample | eval end to end: a one-epoch run writes its log and model, the model samples and scores
// text, options are range-checked, and the translator commands and the language model commands refuse each other's
// model files by name.
#include <doctest/doctest.h>

#include "cli_test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <iterator>
#include <string>
#include <vector>

#include "data/data_dir.h"

namespace {

using attend_test::Run;

// One thread: the models here are tiny.
Run run_attend(const std::string& args) { return attend_test::run_attend(args, "OMP_NUM_THREADS=1"); }

void check_refused(const std::string& args, const std::string& message) {
    CAPTURE(args);
    const Run r = run_attend(args);
    CAPTURE(r.output);
    CHECK(r.status == 1);
    CHECK(r.output.find(message) != std::string::npos);
}

}  // namespace

TEST_CASE("attend lm train, sample, eval: a one-epoch run, its log, its model; each loader refuses the other kind") {
    namespace fs = std::filesystem;
    const std::string out = std::string(P_tmpdir) + "/attend_test_" + std::to_string(getpid()) + "_lm";
    fs::remove_all(out);
    const std::string book = attend::default_data_dir() + "/timemachine/timemachine.txt";
    Run r = run_attend("lm train --preset gru-d2l --epochs 2 --chars 3000 --held-out 0.1 --data '" + book +
                       "' --out '" + out + "'");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("held-out perplexity") != std::string::npos);
    std::ifstream log(out + "/train.jsonl");
    int epochs = 0;
    for (std::string line; std::getline(log, line);) {
        const nlohmann::json j = nlohmann::json::parse(line);
        if (j["event"] == "epoch") {
            ++epochs;
            CHECK(j["perplexity"].get<double>() > 1.0);
            CHECK(j["perplexity"].get<double>() < 40.0);
        }
        if (j["event"] == "end") CHECK(j["sample_time_traveller"].get<std::string>().rfind("time traveller", 0) == 0);
    }
    CHECK(epochs == 2);
    const std::string model = out + "/model.safetensors";
    // The same run folder is not reused without --overwrite.
    check_refused("lm train --preset gru-d2l --epochs 1 --out '" + out + "'", "holds a run");

    r = run_attend("lm sample -m '" + model + "' --prefix 'time traveller' --length 20");
    CHECK(r.status == 0);
    CHECK(r.output.rfind("time traveller", 0) == 0);
    CHECK(r.output.size() == 14 + 20 + 1);
    const Run a = run_attend("lm sample -m '" + model + "' --temperature 1 --top-k 4 --seed 9");
    const Run b = run_attend("lm sample -m '" + model + "' --temperature 1 --top-k 4 --seed 9");
    CHECK(a.status == 0);
    CHECK(a.output == b.output);
    r = run_attend("lm eval -m '" + model + "' --text '" + book + "'");
    CHECK(r.status == 0);
    CHECK(r.output.find("perplexity") == 0);

    check_refused("lm sample -m '" + model + "' --temperature -1", "--temperature: must be at least 0, got -1");
    check_refused("lm sample -m '" + model + "' --length -2", "--length: must be at least 0, got -2");
    check_refused("lm train --preset gpt-d2l", "unknown language model preset 'gpt-d2l'");
    check_refused("lm train --preset rnn-d2l --held-out 1", "--held-out: must be in [0, 1), got 1");
    check_refused("translate -m '" + model + "' -t 'hello'", "this is a language model");
    const std::string translator = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-de-en-cased.safetensors";
    REQUIRE(fs::exists(translator));
    check_refused("lm sample -m '" + translator + "'", "this is a translator");
    fs::remove_all(out);
}

TEST_CASE("attend lm train --resume trains a stopped run on, bit for bit the run that was not stopped") {
    namespace fs = std::filesystem;
    const std::string base = std::string(P_tmpdir) + "/attend_test_" + std::to_string(getpid()) + "_lm_resume";
    fs::remove_all(base);
    const std::string settings = " --preset rnn-d2l --chars 2000 --held-out 0.1 --data '" + attend::default_data_dir() +
                                 "/timemachine/timemachine.txt'";
    REQUIRE(run_attend("lm train" + settings + " --epochs 3 --save-every 1 --out '" + base + "/straight'").status == 0);
    REQUIRE(run_attend("lm train" + settings + " --epochs 1 --out '" + base + "/stopped'").status == 0);
    // A line of an epoch trained after the last save (a run killed before it could save) is dropped on resume.
    std::ofstream(base + "/stopped/train.jsonl", std::ios::app) << R"({"event":"epoch","epoch":2,"perplexity":9})" << '\n';
    const Run r = run_attend("lm train" + settings + " --epochs 3 --resume --out '" + base + "/stopped'");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);

    auto tensors = [](const std::string& path) {  // the file after its header: every tensor's bytes
        std::ifstream in(path, std::ios::binary);
        uint64_t header = 0;
        in.read(reinterpret_cast<char*>(&header), 8);
        in.seekg(std::streamoff(8 + header));
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string straight = tensors(base + "/straight/model.safetensors");
    CHECK(straight.size() > 100000);
    CHECK(straight == tensors(base + "/stopped/model.safetensors"));
    std::vector<int> epochs;
    std::ifstream log(base + "/stopped/train.jsonl");
    for (std::string line; std::getline(log, line);) {
        const nlohmann::json j = nlohmann::json::parse(line);
        if (j["event"] == "epoch") epochs.push_back(j["epoch"].get<int>());
    }
    CHECK(epochs == std::vector<int>{1, 2, 3});

    const Run done = run_attend("lm train" + settings + " --epochs 3 --resume --out '" + base + "/stopped'");
    CHECK(done.status == 0);
    CHECK(done.output.find("already trained 3 of 3 epochs") != std::string::npos);
    check_refused("lm train --preset rnn-d2l --chars 1000 --held-out 0.1 --epochs 4 --resume --out '" + base + "/stopped'",
                  "the run was trained with train_chars 2000, asked now 1000");
    check_refused("lm train" + settings + " --resume --out '" + base + "/none'", "no model.safetensors to resume from");
    check_refused("lm train" + settings + " --resume --overwrite --out '" + base + "/stopped'", "excludes");
    fs::remove_all(base);
}

// `attend bench lm` without its PyTorch peer: a step of every preset is timed and printed, one figure a line
// (wall clock and CPU time); the speed itself is not asserted, only that each figure is there and positive.
TEST_CASE("attend bench lm --no-torch: a tokens/s figure for every preset; its options are checked") {
    const Run r = run_attend("bench lm --no-torch --steps 2 --threads 1");
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("# torch comparison skipped: --no-torch") != std::string::npos);
    for (const char* preset : {"rnn-d2l", "gru-d2l", "lstm-d2l", "deep-lstm-d2l", "birnn-d2l"})
        for (const char* clock : {" ", "_cpu "}) {
            const std::string name = "lm_" + std::string(preset) + "_threads1_tokens_per_s" + clock;
            CAPTURE(name);
            const size_t at = r.output.find("\n" + name);
            REQUIRE(at != std::string::npos);
            const double value = std::strtod(r.output.c_str() + at + 1 + name.size(), nullptr);
            CHECK(value > 0);
            CHECK(r.output.compare(r.output.find(' ', at + 1 + name.size()), 10, " tokens/s ") == 0);
        }
    check_refused("bench lm --presets gru-d2l,nope --no-torch", "unknown language model preset 'nope'");
    check_refused("bench lm --threads 0 --no-torch", "--threads: '0' is neither a thread count >= 1 nor 'all'");
    check_refused("bench lm --threads 1,,2 --no-torch", "--threads: empty entry in '1,,2'");
    check_refused("bench lm --steps 0", "--steps: must be at least 1, got 0");
}
