// Training that survives its process: `attend train` killed with SIGKILL at several points (inside a checkpoint
// write, just before a rename, while a resume rewrites the log, at an arbitrary moment) and stopped with SIGTERM,
// then resumed until done, ends with the weights and optimizer state of an uninterrupted run, bit for bit, and with
// its train.jsonl (each step once, the same losses). A resume passes over a newest checkpoint that does not load.
#include <doctest/doctest.h>

#include "data/data_dir.h"
#include "error.h"
#include "train/checkpoint.h"
#include "trainer_test_util.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

using namespace attend;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int step_lines(const fs::path& log) {
    const std::string text = read_text(log);
    int n = 0;
    for (size_t at = text.find("\"event\":\"step\""); at != std::string::npos; at = text.find("\"event\":\"step\"", at + 1)) n++;
    return n;
}

struct Finish {
    int signal = 0;     // the signal that ended the process, 0 when it exited
    int exit_code = 0;  // when it exited
    std::string output;  // stdout and stderr
};

// `attend train` on a Transformer small enough for a few dozen steps a second on one thread: 2 epochs of 21 steps
// (the batches are fixed by the data), a checkpoint every 4 steps, a log line every step, no learning-rate cooldown.
class TrainProcess {
public:
    TrainProcess(const std::string& out_dir, bool resume, const std::string& kill_in_write = "",
                 const std::vector<std::string>& extra = {})
        : out_(out_dir) {
        std::vector<std::string> args = {ATTEND_CLI_PATH, "train", "--preset", "transformer-tiny", "--out", out_dir,
                                         "--data", default_data_dir(), "--bpe", "300", "--max-sentences", "400",
                                         "--dim", "32", "--heads", "2", "--layers", "1", "--ffn", "32", "--dropout",
                                         "0.1", "--max-tokens", "600", "--warmup", "4", "--lr", "0.002", "--epochs", "2",
                                         "--checkpoint-every", "4", "--keep", "3", "--log-every", "1",
                                         "--val-bleu-sentences", "16", "--average-last", "0", "--threads", "1"};
        if (resume) args.push_back("--resume");
        else args.insert(args.end(), {"--cooldown-epochs", "0"});
        // extra: flag, value pairs; a flag already given takes the new value.
        for (size_t i = 0; i + 1 < extra.size(); i += 2) {
            auto at = std::find(args.begin(), args.end(), extra[i]);
            if (at != args.end()) *(at + 1) = extra[i + 1];
            else args.insert(args.end(), {extra[i], extra[i + 1]});
        }
        std::vector<std::string> env;
        for (char** e = environ; *e; e++)
            if (std::strncmp(*e, "ATTEND_TEST_KILL_IN_WRITE=", 26) != 0 && std::strncmp(*e, "OMP_WAIT_POLICY=", 16) != 0)
                env.push_back(*e);
        env.push_back("OMP_WAIT_POLICY=passive");
        if (!kill_in_write.empty()) env.push_back("ATTEND_TEST_KILL_IN_WRITE=" + kill_in_write);
        std::vector<char*> argv, envp;
        for (std::string& a : args) argv.push_back(a.data());
        for (std::string& e : env) envp.push_back(e.data());
        argv.push_back(nullptr);
        envp.push_back(nullptr);

        output_ = out_.string() + ".output" + std::to_string(++runs_);
        posix_spawn_file_actions_t files;
        posix_spawn_file_actions_init(&files);
        posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, output_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
        const int error = posix_spawn(&pid_, ATTEND_CLI_PATH, &files, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&files);
        if (error) throw Error(std::string("cannot run ") + ATTEND_CLI_PATH + ": " + std::strerror(error));
    }

    // Waits until ready() holds (true) or the process ends (false).
    template <class Ready>
    bool wait_until(Ready ready) {
        for (auto start = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - start < std::chrono::seconds(120);) {
            if (ready()) return true;
            int status = 0;
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                reap(status);
                return false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return false;
    }
    // What the process has printed so far.
    std::string output() const { return read_text(output_); }

    void send(int signal) { ::kill(pid_, signal); }
    pid_t pid() const { return pid_; }

    Finish wait() {
        if (!reaped_) {
            int status = 0;
            waitpid(pid_, &status, 0);
            reap(status);
        }
        return finished_;
    }

private:
    void reap(int status) {
        reaped_ = true;
        if (WIFSIGNALED(status)) finished_.signal = WTERMSIG(status);
        else finished_.exit_code = WEXITSTATUS(status);
        finished_.output = read_text(output_);
    }

    static inline int runs_ = 0;  // each process its own output file: two may run at once on one folder
    fs::path out_;
    std::string output_;
    pid_t pid_ = 0;
    bool reaped_ = false;
    Finish finished_;
};

// The log without what differs between any two runs (throughput, wall time).
std::vector<json> log_without_timings(const fs::path& dir) {
    std::vector<json> lines;
    std::ifstream in(dir / "train.jsonl");
    for (std::string line; std::getline(in, line);) {
        json j = json::parse(line);
        j.erase("target_tokens_per_s");
        j.erase("elapsed_s");
        lines.push_back(j);
    }
    return lines;
}

void check_same_weights(const std::string& a, const std::string& b) {
    INFO(a << " against " << b);
    Checkpoint ca = load_checkpoint(a), cb = load_checkpoint(b);
    const ParameterStore& pa = ca.model.parameters();
    const ParameterStore& pb = cb.model.parameters();
    REQUIRE(pa.size() == pb.size());
    CHECK(std::memcmp(pa.values(), pb.values(), pa.size() * sizeof(float)) == 0);
    CHECK(ca.adam_m == cb.adam_m);
    CHECK(ca.adam_v == cb.adam_v);
    CHECK(ca.state.step == cb.state.step);
    CHECK(ca.state.epoch == cb.state.epoch);
    CHECK(ca.state.target_tokens == cb.state.target_tokens);
}

}  // namespace

TEST_CASE("attend train killed at any point and resumed ends exactly like an uninterrupted run") {
    const fs::path straight = attend_test::fresh_run_dir("kill-straight");
    const fs::path killed = attend_test::fresh_run_dir("kill-resumed");

    Finish done = TrainProcess(straight.string(), false).wait();
    INFO(done.output);
    REQUIRE(done.signal == 0);
    REQUIRE(done.exit_code == 0);
    const std::vector<std::string> final_checkpoints = list_checkpoints(straight.string());
    REQUIRE(!final_checkpoints.empty());
    REQUIRE(load_checkpoint(final_checkpoints.back()).state.epoch == 2);
    REQUIRE(load_checkpoint(final_checkpoints.back()).state.step > 20);

    auto killed_by_itself = [&](bool resume, const std::string& kill_in_write) {
        Finish f = TrainProcess(killed.string(), resume, kill_in_write).wait();
        INFO("ATTEND_TEST_KILL_IN_WRITE=" << kill_in_write << "\n" << f.output);
        CHECK(f.signal == SIGKILL);
        return f;
    };
    // Inside checkpoint 8's write: 3000 bytes of its temporary file are on disk, the log runs to step 8.
    killed_by_itself(false, "checkpoint-00000008.safetensors:3000");
    CHECK(fs::exists(killed / "checkpoint-00000008.safetensors.tmp"));
    CHECK_FALSE(fs::exists(killed / "checkpoint-00000008.safetensors"));
    // Resumed from step 4; killed after checkpoint 12 is written and synced, just before its rename.
    Finish f = killed_by_itself(true, "checkpoint-00000012.safetensors:100000000");
    CHECK(f.output.find("resuming from " + (killed / "checkpoint-00000004.safetensors").string()) != std::string::npos);
    CHECK(f.output.find("dropped 4 line(s) logged after step 4") != std::string::npos);
    // Resumed from step 8; killed while rewriting train.jsonl without steps 9-12: the old log stays whole.
    killed_by_itself(true, "train.jsonl:100");
    CHECK(step_lines(killed / "train.jsonl") == 12);
    // Resumed from step 8 again; SIGTERM after its first step saves a checkpoint and exits like Ctrl-C, with the
    // status of a process that SIGTERM ended.
    {
        TrainProcess p(killed.string(), true);
        REQUIRE(p.wait_until([&] {
            return p.output().find("train.jsonl: dropped") != std::string::npos && step_lines(killed / "train.jsonl") > 8;
        }));
        p.send(SIGTERM);
        Finish t = p.wait();
        INFO(t.output);
        CHECK(t.signal == 0);
        CHECK(t.exit_code == 128 + SIGTERM);
        CHECK(t.output.find("interrupted: continue with --resume") != std::string::npos);
        const int64_t stopped_at = load_checkpoint(list_checkpoints(killed.string()).back()).state.step;
        CHECK(stopped_at > 8);
        CHECK(step_lines(killed / "train.jsonl") == stopped_at);
    }
    // At the end of the first epoch, just before best.safetensors is renamed (its "epoch" line is logged).
    killed_by_itself(true, "best.safetensors:100000000");
    CHECK(read_text(killed / "train.jsonl").find("\"event\":\"epoch\"") != std::string::npos);
    // At whatever moment the third step after a resume finds it.
    {
        const int64_t resumes_at = load_checkpoint(list_checkpoints(killed.string()).back()).state.step;
        TrainProcess p(killed.string(), true);
        REQUIRE(p.wait_until([&] {
            return p.output().find("train.jsonl: dropped") != std::string::npos &&
                   step_lines(killed / "train.jsonl") >= resumes_at + 3;
        }));
        p.send(SIGKILL);
        CHECK(p.wait().signal == SIGKILL);
    }
    Finish last = TrainProcess(killed.string(), true).wait();
    INFO(last.output);
    REQUIRE(last.exit_code == 0);

    const std::vector<std::string> resumed_checkpoints = list_checkpoints(killed.string());
    check_same_weights(final_checkpoints.back(), resumed_checkpoints.back());
    const TranslatorModel best_straight = load_translator_model(SafeTensors::from_file((straight / "best.safetensors").string()));
    const TranslatorModel best_killed = load_translator_model(SafeTensors::from_file((killed / "best.safetensors").string()));
    REQUIRE(best_straight.parameters().size() == best_killed.parameters().size());
    CHECK(std::memcmp(best_straight.parameters().values(), best_killed.parameters().values(),
                      best_straight.parameters().size() * sizeof(float)) == 0);
    const std::vector<json> expected = log_without_timings(straight), got = log_without_timings(killed);
    CHECK(got.size() == expected.size());
    for (size_t i = 0; i < std::min(got.size(), expected.size()); i++) CHECK(got[i] == expected[i]);
    for (const auto& entry : fs::directory_iterator(killed)) {
        CHECK(entry.path().extension() != ".tmp");
        CHECK(entry.path().extension() != ".unreadable");  // no kill left a checkpoint that does not load
    }
}

TEST_CASE("a resume passes over checkpoints that do not load, says which and why, and fails when none loads") {
    attend::TrainOptions straight = attend_test::small_transformer_run(attend_test::fresh_run_dir("fallback-straight"), 1);
    straight.max_steps = 6;
    train_translator(straight, false);

    attend::TrainOptions o = attend_test::small_transformer_run(attend_test::fresh_run_dir("fallback"), 1);
    o.max_steps = 6;
    o.checkpoint_every = 2;
    train_translator(o, false);
    const std::vector<std::string> written = list_checkpoints(o.out_dir);
    REQUIRE(written.size() == 3);  // steps 2, 4, 6
    fs::resize_file(written[2], fs::file_size(written[2]) / 2);  // a newest checkpoint cut short

    std::vector<std::string> said;
    TrainHooks hooks;
    hooks.message = [&](const std::string& line) { said.push_back(line); };
    TrainResult r = train_translator(o, /*resume=*/true, hooks);
    CHECK(r.state.step == 6);
    REQUIRE(said.size() >= 2);
    const std::string skipping = "skipping " + written[2] + " (set aside as " + written[2] + ".unreadable), which does not load: ";
    CHECK(said[0].rfind(skipping, 0) == 0);
    CHECK(said[0].size() > skipping.size());  // and why
    CHECK(fs::exists(written[2] + ".unreadable"));  // kept for a look, out of the checkpoints pruning counts
    CHECK(said[1] == "resuming from " + written[1]);
    check_same_weights(list_checkpoints(straight.out_dir).back(), list_checkpoints(o.out_dir).back());
    const std::vector<json> expected = log_without_timings(straight.out_dir), got = log_without_timings(o.out_dir);
    CHECK(got == expected);

    for (const std::string& path : list_checkpoints(o.out_dir)) fs::resize_file(path, 100);
    const std::string none_loads = "none of the 3 checkpoints in " + o.out_dir + " loads";
    CHECK_THROWS_WITH(train_translator(o, true), doctest::Contains(none_loads.c_str()));
}

TEST_CASE("a resumed run's log drops what was logged after its checkpoint, and a line cut short") {
    const fs::path dir = attend_test::fresh_run_dir("log-drop");
    fs::create_directories(dir);
    const fs::path log = dir / "train.jsonl";
    std::ofstream(log) << R"({"event":"step","step":1,"epoch":1})" "\n"
                       << R"({"event":"step","step":2,"epoch":1})" "\n"
                       << R"({"event":"epoch","epoch":1,"step":2})" "\n"
                       << R"({"event":"step","step":3,"epoch":2})" "\n"
                       << R"({"event":"step","step":4,"epoch":2})" "\n"
                       << R"({"event":"epoch","epoch":2,"step":4})" "\n"
                       << R"({"event":"step","st)";
    TrainingState at;
    at.step = 3;
    at.epoch = 1;  // in its second epoch (0-based 1)
    CHECK(drop_log_lines_after(log.string(), at) == 3);
    CHECK(read_text(log) == R"({"event":"step","step":1,"epoch":1})" "\n"
                            R"({"event":"step","step":2,"epoch":1})" "\n"
                            R"({"event":"epoch","epoch":1,"step":2})" "\n"
                            R"({"event":"step","step":3,"epoch":2})" "\n");
    CHECK(drop_log_lines_after(log.string(), at) == 0);  // nothing newer: left as it is
    // At the end of the first epoch, before its "epoch" line's epoch is counted as finished.
    at.step = 2;
    at.epoch = 0;
    at.batch_in_epoch = 2;
    CHECK(drop_log_lines_after(log.string(), at) == 2);
    CHECK(read_text(log) == R"({"event":"step","step":1,"epoch":1})" "\n" R"({"event":"step","step":2,"epoch":1})" "\n");
    CHECK(drop_log_lines_after((dir / "none.jsonl").string(), at) == 0);
}

TEST_CASE("an atomic write that cannot happen says where and why, and leaves no temporary file") {
    const fs::path dir = attend_test::fresh_run_dir("atomic-write");
    const std::string cannot_write = "cannot write " + (dir / "missing" / "x.safetensors.tmp").string() + ": ";
    CHECK_THROWS_WITH(write_file_atomically((dir / "missing" / "x.safetensors").string(), {1, 2, 3}),
                      doctest::Contains(cannot_write.c_str()));
    fs::create_directories(dir / "target.safetensors");  // a folder in the way of the rename
    CHECK_THROWS_WITH(write_file_atomically((dir / "target.safetensors").string(), {1, 2, 3}),
                      doctest::Contains("cannot rename"));
    CHECK_FALSE(fs::exists(dir / "target.safetensors.tmp"));
    write_file_atomically((dir / "ok.bin").string(), {1, 2, 3});
    CHECK(read_text(dir / "ok.bin") == std::string("\x01\x02\x03"));
}

TEST_CASE("attend train: a second trainer on a run folder stops at once naming the first's pid; Ctrl-C exits 130") {
    const fs::path dir = attend_test::fresh_run_dir("two-trainers");
    TrainProcess first(dir.string(), false, "", {"--epochs", "1000"});  // still running when the others start
    REQUIRE(first.wait_until([&] { return step_lines(dir / "train.jsonl") >= 2; }));
    const std::string in_use = dir.string() + " is in use by another training run (pid " + std::to_string(first.pid()) + ",";
    for (const bool resume : {true, false}) {
        CAPTURE(resume);
        const auto start = std::chrono::steady_clock::now();
        Finish second = TrainProcess(dir.string(), resume).wait();
        INFO(second.output);
        CHECK(second.exit_code == 1);
        CHECK(second.output.find(in_use) != std::string::npos);
        CHECK(second.output.find("data:") == std::string::npos);  // stopped before any work
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
    }
    CHECK_THROWS_WITH(RunFolderLock(dir.string()), doctest::Contains(in_use.c_str()));
    first.send(SIGINT);
    Finish stopped = first.wait();
    INFO(stopped.output);
    CHECK(stopped.signal == 0);
    CHECK(stopped.exit_code == 128 + SIGINT);
    CHECK(stopped.output.find("(interrupted: continue with --resume)") != std::string::npos);
    const std::vector<std::string> checkpoints = list_checkpoints(dir.string());
    REQUIRE(!checkpoints.empty());
    CHECK(step_lines(dir / "train.jsonl") == load_checkpoint(checkpoints.back()).state.step);  // one writer's log
    RunFolderLock free_again(dir.string());
}

TEST_CASE("attend train: the last line counts the epochs trained, and says when no validation ran") {
    // 21 batches an epoch (TrainProcess's data and batches).
    const fs::path dir = attend_test::fresh_run_dir("summary");
    Finish part = TrainProcess(dir.string(), false, "", {"--max-steps", "5"}).wait();
    INFO(part.output);
    CHECK(part.exit_code == 0);
    CHECK(part.output.find("steps 5, epochs 0 and 5 batches of epoch 1, last loss ") != std::string::npos);
    CHECK(part.output.find(", no validation, ") != std::string::npos);
    CHECK(part.output.find("val loss 0.0000") == std::string::npos);

    // --max-steps at an epoch's last batch: the epoch ends as in a run without the limit, validated.
    Finish epoch = TrainProcess(dir.string(), true, "", {"--max-steps", "21"}).wait();
    INFO(epoch.output);
    CHECK(epoch.exit_code == 0);
    CHECK(epoch.output.find("steps 21, epochs 1, last loss ") != std::string::npos);
    CHECK(epoch.output.find("epoch 1: train loss ") != std::string::npos);
    CHECK(epoch.output.find(", val loss ") != std::string::npos);
    CHECK(epoch.output.find("no validation") == std::string::npos);
    CHECK(load_checkpoint(list_checkpoints(dir.string()).back()).state.epoch == 1);

    Finish done = TrainProcess(dir.string(), true).wait();
    INFO(done.output);
    CHECK(done.exit_code == 0);
    CHECK(done.output.find("steps 42, epochs 2, last loss ") != std::string::npos);
    CHECK(done.output.find(", val loss ") != std::string::npos);
}
