// The release the library and the program report (`attend --version`, metric signatures). The CMake project,
// package.json and wasm/package.json carry the same number.
#pragma once

namespace attend {

inline constexpr const char* kAttendVersion = "0.1.0";

}  // namespace attend
