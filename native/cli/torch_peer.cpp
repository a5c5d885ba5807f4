#include "cli/torch_peer.h"

#include "error.h"

#include <cstdio>
#include <cstdlib>

namespace attend::cli {

namespace {
// $ATTEND_PYTHON names another interpreter (a GPU machine's CUDA build of torch lives in its own environment).
std::string python() {
    const char* env = std::getenv("ATTEND_PYTHON");
    return env && *env ? env : "/usr/bin/python3";
}
}  // namespace

bool torch_available() {
    if (std::system((python() + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0) return true;
    std::printf("# torch comparison skipped: '%s -c \"import torch\"' failed (Debian's python3-torch is needed)\n",
                python().c_str());
    return false;
}

void run_torch_script(const std::string& bench, const std::string& script, const std::string& args,
                      const std::function<void(const std::string& line)>& on_line) {
    const std::string command = python() + " " + ATTEND_SOURCE_DIR + "/" + script + " " + args;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw Error("bench " + bench + ": could not run '" + command + "'");
    std::string line;
    for (char buffer[4096]; std::fgets(buffer, sizeof buffer, pipe);) {
        line += buffer;
        if (line.back() != '\n') continue;  // a long line arrives in pieces
        line.pop_back();
        on_line(line);
        line.clear();
    }
    if (!line.empty()) on_line(line);
    const int status = pclose(pipe);
    if (status != 0) std::printf("# torch script exited with status %d: '%s'\n", status, command.c_str());
}

std::map<std::string, double> run_torch_figures(const std::string& bench, const std::string& script,
                                                const std::string& args, bool echo) {
    std::map<std::string, double> figures;
    run_torch_script(bench, script, args, [&](const std::string& line) {
        if (echo) std::printf("%s\n", line.c_str());
        char name[256];
        double value;
        if (std::sscanf(line.c_str(), "%255s %lf", name, &value) == 2) figures[name] = value;
    });
    return figures;
}

void compare_tokens_per_s_with_torch(const std::string& bench, const std::string& script, const std::string& args,
                                     double tokens_per_s, bool with_torch) {
    if (!with_torch) {
        std::printf("# torch comparison skipped: --no-torch\n");
        return;
    }
    if (!torch_available()) return;
    const std::map<std::string, double> figures = run_torch_figures(bench, script, args, true);
    const auto torch = figures.find("torch_" + bench + "_tokens_per_s");
    if (torch == figures.end() || !(torch->second > 0)) return;
    std::printf("%s_tokens_per_s_vs_torch %.2f x (attend %.1f tokens/s, torch %.1f tokens/s)\n", bench.c_str(),
                tokens_per_s / torch->second, tokens_per_s, torch->second);
}

}  // namespace attend::cli
