# The Emscripten half of the tree (included from CMakeLists.txt when EMSCRIPTEN is set).
#
# The core is compiled twice: with WebAssembly SIMD (-msimd128 -msse4.1: xsimd's SSE4.1 batch becomes
# f32x4 instructions through Emscripten's SSE headers) and without, for engines that lack SIMD.
# Artifacts go to wasm/dist/.

# Never /usr/include on the include path (glibc headers break the wasm build): a build-tree folder that
# holds only links to the header-only libraries the core needs.
set(ATTEND_WASM_INCLUDE ${PROJECT_BINARY_DIR}/wasm-include)
file(MAKE_DIRECTORY ${ATTEND_WASM_INCLUDE})
foreach(lib xsimd nlohmann)
  if(NOT EXISTS ${ATTEND_WASM_INCLUDE}/${lib})
    file(CREATE_LINK /usr/include/${lib} ${ATTEND_WASM_INCLUDE}/${lib} SYMBOLIC)
  endif()
endforeach()

set(ATTEND_DIST ${PROJECT_SOURCE_DIR}/wasm/dist)
file(MAKE_DIRECTORY ${ATTEND_DIST})

set(ATTEND_WASM_COMMON_FLAGS -O3)
set(ATTEND_WASM_LINK_FLAGS -O3 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB)
# C++ exceptions: the SIMD build uses WebAssembly's own exception handling (every engine with SIMD but a few
# 2021-22 releases has it; attend.js checks both before choosing it). Emscripten's JavaScript emulation instead
# sends each call that may throw through a JS trampoline, which cost the translator about 17% of its time. The
# build without SIMD keeps the emulation, so it still runs on engines that have neither.
set(ATTEND_WASM_EXCEPTIONS_simd -fwasm-exceptions)
set(ATTEND_WASM_EXCEPTIONS_nosimd -fexceptions)

# One static core library per variant.
foreach(variant simd nosimd)
  add_library(attend_core_${variant} STATIC ${ATTEND_CORE_SOURCES})
  target_include_directories(attend_core_${variant} SYSTEM PUBLIC /usr/include/eigen3 ${ATTEND_WASM_INCLUDE})
  target_include_directories(attend_core_${variant} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/core)
  # Eigen's SSE path needs x86 inline asm that wasm lacks; LLVM still vectorizes its GEMM with -msimd128.
  target_compile_definitions(attend_core_${variant} PUBLIC EIGEN_DONT_VECTORIZE EIGEN_DONT_PARALLELIZE)
  target_compile_options(attend_core_${variant} PUBLIC ${ATTEND_WASM_COMMON_FLAGS} ${ATTEND_WASM_EXCEPTIONS_${variant}})
  if(variant STREQUAL "simd")
    target_compile_options(attend_core_${variant} PUBLIC -msimd128 -msse4.1)
    target_link_options(attend_core_${variant} PUBLIC -msimd128)
  endif()
  target_link_options(attend_core_${variant} PUBLIC ${ATTEND_WASM_LINK_FLAGS} ${ATTEND_WASM_EXCEPTIONS_${variant}})
endforeach()

# Kernel-case runner for tests/wasm: the same cases as the native build, run in Node.
if(EXISTS ${PROJECT_SOURCE_DIR}/tests/wasm/kernel_cases.cpp)
  foreach(variant simd nosimd)
    add_executable(kernel_cases_${variant} ${PROJECT_SOURCE_DIR}/tests/wasm/kernel_cases.cpp)
    target_link_libraries(kernel_cases_${variant} PRIVATE attend_core_${variant})
    target_link_options(kernel_cases_${variant} PRIVATE -sENVIRONMENT=node -sSINGLE_FILE=1 -sEXIT_RUNTIME=1)
    set_target_properties(kernel_cases_${variant} PROPERTIES
      SUFFIX ".cjs" RUNTIME_OUTPUT_DIRECTORY ${ATTEND_DIST})
  endforeach()
endif()

# The translator module (ES module + wasm) for browsers and Node, if its bindings exist.
if(EXISTS ${PROJECT_SOURCE_DIR}/wasm/CMakeLists.txt)
  add_subdirectory(wasm)
endif()
