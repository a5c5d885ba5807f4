// Running a PyTorch peer script beside a benchmark: Debian's /usr/bin/python3 with python3-torch (or $ATTEND_PYTHON),
// scripts from this repository (bench/, tools/). Every `attend bench` command that compares with PyTorch goes through here.
#pragma once
#include <functional>
#include <map>
#include <string>

namespace attend::cli {

// True when `/usr/bin/python3 -c 'import torch'` works; otherwise prints a "# torch comparison skipped" line.
bool torch_available();

// Runs `/usr/bin/python3 <repo>/<script> <args>` and hands each complete output line (newline removed) to
// on_line. A failed start throws attend::Error naming the bench; a non-zero exit status is printed.
void run_torch_script(const std::string& bench, const std::string& script, const std::string& args,
                      const std::function<void(const std::string& line)>& on_line);

// The `name value` lines of a peer script, optionally echoed to stdout as they come.
std::map<std::string, double> run_torch_figures(const std::string& bench, const std::string& script,
                                                const std::string& args, bool echo);

// A training bench's last line: runs the peer script (echoed) and prints `<bench>_tokens_per_s_vs_torch <ratio> x`
// beside the script's `torch_<bench>_tokens_per_s`; with_torch false (--no-torch) prints that it was skipped.
void compare_tokens_per_s_with_torch(const std::string& bench, const std::string& script, const std::string& args,
                                     double tokens_per_s, bool with_torch);

}  // namespace attend::cli
