// `attend translate` streams: a line's translation is written once it and every line before it are done, without
// waiting for the end of the input; SIGINT and SIGTERM leave the lines finished so far, whole, and a message; a NUL
// inside a line is read as a space and said, never the end of the line. These talk to a running `attend` over pipes
// the way a program using it as a filter would.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const std::string kModel = std::string(ATTEND_SOURCE_DIR) + "/web/models/multi30k-en-de-cased.safetensors";

// `attend args` with its standard input and output on pipes held here, standard error collected in a file.
class Filter {
public:
    explicit Filter(const std::vector<std::string>& args) {
        int in[2], out[2];
        REQUIRE(pipe(in) == 0);
        REQUIRE(pipe(out) == 0);
        stderr_path_ = std::string(P_tmpdir) + "/attend_stream_" + std::to_string(getpid()) + ".err";
        pid_ = fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            dup2(in[0], STDIN_FILENO);
            dup2(out[1], STDOUT_FILENO);
            if (std::FILE* err = std::fopen(stderr_path_.c_str(), "w")) dup2(fileno(err), STDERR_FILENO);
            close(in[0]), close(in[1]), close(out[0]), close(out[1]);
            setenv("OMP_WAIT_POLICY", "passive", 1);
            std::vector<char*> argv{const_cast<char*>(ATTEND_CLI_PATH)};
            for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            execv(ATTEND_CLI_PATH, argv.data());
            _exit(127);
        }
        close(in[0]);
        close(out[1]);
        to_ = in[1];
        from_ = out[0];
    }
    ~Filter() {
        if (to_ >= 0) close(to_);
        if (from_ >= 0) close(from_);
        if (pid_ > 0 && !waited_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        std::remove(stderr_path_.c_str());
    }

    void write_text(const std::string& text) { REQUIRE(write(to_, text.data(), text.size()) == ssize_t(text.size())); }
    void close_input() {
        close(to_);
        to_ = -1;
    }
    void signal(int s) { REQUIRE(kill(pid_, s) == 0); }

    // The next output line; "" with timed_out set when none comes within `seconds` (a filter that holds its output
    // until the end of the input would wait forever here).
    std::string read_line(int seconds, bool& timed_out) {
        timed_out = false;
        while (true) {
            const size_t nl = buffer_.find('\n');
            if (nl != std::string::npos) {
                std::string line = buffer_.substr(0, nl);
                buffer_.erase(0, nl + 1);
                return line;
            }
            pollfd p{from_, POLLIN, 0};
            if (poll(&p, 1, seconds * 1000) <= 0) {
                timed_out = true;
                return "";
            }
            char chunk[4096];
            const ssize_t got = read(from_, chunk, sizeof chunk);
            if (got <= 0) {
                timed_out = true;  // the end of the output without a line
                return "";
            }
            buffer_.append(chunk, static_cast<size_t>(got));
        }
    }
    // The rest of the output, once the process has closed it.
    std::string read_rest() {
        char chunk[4096];
        for (ssize_t got; (got = read(from_, chunk, sizeof chunk)) > 0;) buffer_.append(chunk, static_cast<size_t>(got));
        std::string rest;
        rest.swap(buffer_);
        return rest;
    }
    // The exit status (128 + the signal for a process that a signal ended without its handler).
    int wait_status() {
        int status = 0;
        REQUIRE(waitpid(pid_, &status, 0) == pid_);
        waited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::string error_output() const {
        std::string text;
        if (std::FILE* f = std::fopen(stderr_path_.c_str(), "r")) {
            char chunk[4096];
            for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) text.append(chunk, n);
            std::fclose(f);
        }
        return text;
    }

private:
    pid_t pid_ = -1;
    int to_ = -1, from_ = -1;
    bool waited_ = false;
    std::string buffer_, stderr_path_;
};

// The translation of one text through `attend translate --text` (the same binary and machine).
std::string translate_text(const std::string& text) {
    Filter f({"translate", "-m", kModel, "-t", text});
    bool timed_out = false;
    const std::string line = f.read_line(120, timed_out);
    REQUIRE_FALSE(timed_out);
    CHECK(f.wait_status() == 0);
    return line;
}

}  // namespace

TEST_CASE("attend translate streams: each line's translation is out before the next line is in") {
    for (const char* beam : {"1", "4"}) {  // the batched greedy path and the one-at-a-time path
        CAPTURE(beam);
        Filter f({"translate", "-m", kModel, "-b", beam});
        bool timed_out = false;
        // The input stays open: only a filter that answers each line as it comes gets past the first read.
        f.write_text("A dog runs on the beach.\n");
        const std::string first = f.read_line(120, timed_out);
        REQUIRE_MESSAGE(!timed_out, "no translation of the first line while the input stayed open");
        CHECK_FALSE(first.empty());
        f.write_text("\nTwo men play soccer.\n");
        CHECK(f.read_line(120, timed_out).empty());  // the empty line, answered with an empty line
        REQUIRE_FALSE(timed_out);
        const std::string third = f.read_line(120, timed_out);
        REQUIRE_FALSE(timed_out);
        CHECK_FALSE(third.empty());
        f.close_input();
        CHECK(f.read_rest().empty());
        CHECK(f.wait_status() == 0);
        CHECK(first == translate_text("A dog runs on the beach."));
        CHECK(third == translate_text("Two men play soccer."));
    }
}

TEST_CASE("attend translate stopped by SIGTERM or SIGINT: the lines done so far, whole, a message, 128 + signal") {
    for (int sig : {SIGTERM, SIGINT}) {
        CAPTURE(sig);
        Filter f({"translate", "-m", kModel, "--json"});
        bool timed_out = false;
        f.write_text("A dog runs on the beach.\nTwo men play soccer.\n");
        for (int line = 1; line <= 2; line++) {
            const nlohmann::json j = nlohmann::json::parse(f.read_line(120, timed_out));
            REQUIRE_FALSE(timed_out);
            CHECK(j.at("line") == line);
        }
        f.signal(sig);  // while it waits for a third line
        CHECK(f.read_rest().empty());
        CHECK(f.wait_status() == 128 + sig);
        const std::string err = f.error_output();
        CAPTURE(err);
        CHECK(err.find(std::string("stopped by ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                       " after 2 lines: the output holds lines 1 to 2, each complete") != std::string::npos);
    }
}

TEST_CASE("attend translate --json: line numbers run on across the chunks a long input is read in") {
    Filter f({"translate", "-m", kModel, "--json", "-b", "1"});
    std::string input;
    for (int i = 0; i < 300; i++) input += i % 7 == 3 ? "\n" : "A dog number " + std::to_string(i) + " runs.\n";
    f.write_text(input);
    f.close_input();
    const std::string out = f.read_rest();
    CHECK(f.wait_status() == 0);
    size_t line = 0, at = 0;
    for (size_t nl; (nl = out.find('\n', at)) != std::string::npos; at = nl + 1) {
        const nlohmann::json j = nlohmann::json::parse(out.substr(at, nl - at));
        CHECK(j.at("line") == ++line);
        CHECK(j.at("text").get<std::string>().empty() == (line % 7 == 4));
    }
    CHECK(line == 300);
}

TEST_CASE("attend translate: a NUL in a line is read as a space and said; the rest of the line and file stay") {
    Filter f({"translate", "-m", kModel});
    f.write_text(std::string("A man\0 walks down the street.\nA dog runs.\n", 42));
    f.close_input();
    const std::string out = f.read_rest();
    CHECK(f.wait_status() == 3);  // a line with a warning
    const std::string err = f.error_output();
    CAPTURE(err);
    CHECK(err.find("line 1: 1 NUL byte in the line, read as a space") != std::string::npos);
    CHECK(out == translate_text("A man  walks down the street.") + "\n" + translate_text("A dog runs.") + "\n");
}

TEST_CASE("attend translate: a line of megabytes (a file that is no text) is skipped with a warning, never held") {
    // 32 MiB of one line, compressed to a few kilobytes, then a sentence.
    const std::string path = std::string(P_tmpdir) + "/attend_stream_long_" + std::to_string(getpid()) + ".gz";
    {
        const std::string command = "{ head -c 33554432 /dev/zero | tr '\\0' 'a'; printf '\\nA dog runs.\\n'; } | gzip -c > '" + path + "'";
        REQUIRE(std::system(command.c_str()) == 0);
    }
    Filter f({"translate", "-m", kModel, "-i", path});
    f.close_input();
    const std::string out = f.read_rest();
    CHECK(f.wait_status() == 3);
    const std::string err = f.error_output();
    CAPTURE(err);
    CHECK(err.find("line 1: longer than 4194304 bytes (is it text, one sentence or paragraph a line?): skipped") !=
          std::string::npos);
    CHECK(out == "\n" + translate_text("A dog runs.") + "\n");
    std::remove(path.c_str());
}
