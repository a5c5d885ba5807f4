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

// A validator of numbers: check(v) is what is wrong with v ("" when nothing), and the message quotes the text as
// given. Text that is not a number passes (CLI11's conversion then reports it).
template <class Check>
CLI::Validator number_validator(Check check, const std::string& description) {
    return CLI::Validator(
        [check](std::string& text) -> std::string {
            double v = 0;
            if (!parse_number(text, v)) return "";
            const std::string wrong = check(v);
            return wrong.empty() ? "" : wrong + ", got " + text;
        },
        description);
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
    return detail::number_validator(
        [lo, hi](double v) -> std::string {
            if (!std::isfinite(v)) return "must be a finite number";
            if (v < lo) return "must be at least " + detail::format_number(lo);
            if (v > hi) return "must be at most " + detail::format_number(hi);
            return "";
        },
        std::isinf(hi) ? ">= " + detail::format_number(lo)
                       : "in " + detail::format_number(lo) + ".." + detail::format_number(hi));
}

// A finite number in [lo, hi], or in (lo, hi] when above_lo; no description of its own (the option's help text
// says the range).
inline CLI::Validator in_range(double lo, double hi, bool above_lo) {
    return detail::number_validator(
        [lo, hi, above_lo](double v) -> std::string {
            if (!std::isfinite(v)) return "must be a finite number";
            if (above_lo && !(v > lo)) return "must be greater than " + detail::format_number(lo);
            if (v < lo) return "must be at least " + detail::format_number(lo);
            if (v > hi) return "must be at most " + detail::format_number(hi);
            return "";
        },
        "");
}

// A finite number > 0 (a learning rate, a duration).
inline CLI::Validator positive() {
    return detail::number_validator(
        [](double v) -> std::string {
            if (!std::isfinite(v)) return "must be a finite number";
            if (!(v > 0)) return "must be greater than 0";
            return "";
        },
        "> 0");
}

// Any finite number (a length penalty exponent).
inline CLI::Validator finite() {
    return detail::number_validator([](double v) -> std::string { return std::isfinite(v) ? "" : "must be a finite number"; },
                            "finite");
}

// A probability that leaves something: a finite number in [0, 1) (dropout, label smoothing).
inline CLI::Validator fraction() {
    return detail::number_validator([](double v) -> std::string { return v >= 0 && v < 1 ? "" : "must be in [0, 1)"; },
                            "in [0, 1)");
}

}  // namespace attend::cli
