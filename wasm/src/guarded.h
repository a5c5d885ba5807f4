// The C interfaces' one way of failing: f's result, or `on_error` when f throws, with the exception's message kept
// in `last_error` (cleared on success) for the module's *_last_error() to return.
#pragma once
#include <exception>
#include <string>

namespace attend {

template <typename F>
auto guarded(std::string& last_error, F&& f, decltype(f()) on_error) -> decltype(f()) {
    try {
        last_error.clear();
        return f();
    } catch (const std::exception& e) {
        last_error = e.what();
    } catch (...) {
        last_error = "unknown error";
    }
    return on_error;
}

}  // namespace attend
