// Range checks for command line options, with messages a person can read ("--threads: must be at least 1, got
// -2") instead of CLI11's numeric range dumps. They run only on values given on the command line, never on an
// option's default.
#pragma once
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace attend::cli {

namespace detail {

// The value as a number, or false when it is not one (CLI11's conversion then reports it).
inline bool parse_number(const std::string& text, double& value) {
    if (text.empty()) return false;
    char* end = nullptr;
    errno = 0;
    value = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
}

inline std::string format_number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.10g", v);
    return buffer;
}

}  // namespace detail

// A default as help text shows it: a float's few significant digits (0.6, not 0.6000000238).
inline std::string help_number(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", v);
    return buffer;
}

// A finite number in [lo, hi] (hi defaults to no upper bound).
inline CLI::Validator at_least(double lo, double hi = HUGE_VAL) {
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            double v = 0;
            if (!detail::parse_number(text, v)) return "";
            if (!std::isfinite(v)) return "must be a finite number, got " + text;
            if (v < lo) return "must be at least " + detail::format_number(lo) + ", got " + text;
            if (v > hi) return "must be at most " + detail::format_number(hi) + ", got " + text;
            return "";
        },
        std::isinf(hi) ? ">= " + detail::format_number(lo)
                       : "in " + detail::format_number(lo) + ".." + detail::format_number(hi));
}

// A finite number > 0 (a learning rate, a duration).
inline CLI::Validator positive() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            if (!detail::parse_number(text, v)) return "";
            if (!std::isfinite(v)) return "must be a finite number, got " + text;
            if (!(v > 0)) return "must be greater than 0, got " + text;
            return "";
        },
        "> 0");
}

// Any finite number (a length penalty exponent).
inline CLI::Validator finite() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            if (!detail::parse_number(text, v)) return "";
            if (!std::isfinite(v)) return "must be a finite number, got " + text;
            return "";
        },
        "finite");
}

// A probability that leaves something: a finite number in [0, 1) (dropout, label smoothing).
inline CLI::Validator fraction() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            if (!detail::parse_number(text, v)) return "";
            if (!(v >= 0 && v < 1)) return "must be in [0, 1), got " + text;
            return "";
        },
        "in [0, 1)");
}

}  // namespace attend::cli
