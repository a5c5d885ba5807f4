// Running the attend program from a test: its exit status and everything it printed.
#pragma once
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace attend_test {

struct Run {
    int status = -1;     // exit status
    std::string output;  // standard output and standard error
};

// `env`: variables set for the run, "NAME=value ...", or env(1)'s options ("-u NAME"). Standard input is empty.
inline Run run_attend(const std::string& args, const std::string& env = "") {
    const std::string command = "env " + env + " '" + ATTEND_CLI_PATH + "' " + args + " 2>&1 < /dev/null";
    Run r;
    std::FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe);
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.output.append(buffer, n);
    const int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace attend_test
