// The device-memory layer: GPU availability (always reported), error messages of CUDA_CHECK / CUBLAS_CHECK (these
// run without a GPU), DeviceBuffer round trips and the arena.
#include "cuda/cublas_linear.h"
#include "cuda_test_util.h"
#include "error.h"

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: GPU availability is reported") {
    const CudaAvailability& a = gpu();
    CHECK(a.compiled);
    if (a.gpus > 0) {
        MESSAGE("CUDA GPUs: " << a.description);
    } else {
        CHECK_FALSE(a.reason.empty());  // "no GPU" always comes with the runtime's reason
        MESSAGE("no usable GPU, the GPU tests of this binary are SKIPPED: " << a.reason);
        std::fprintf(stderr, "test_cuda: no usable GPU, GPU test cases are skipped: %s\n", a.reason.c_str());
    }
}

TEST_CASE("cuda: CUDA_CHECK throws attend::Error naming the call, file and runtime message") {
    // cudaGetErrorString / cudaGetErrorName work without a driver, so this runs everywhere.
    try {
        CUDA_CHECK(cudaErrorInvalidValue);
        FAIL("CUDA_CHECK did not throw");
    } catch (const Error& e) {
        const std::string m = e.what();
        CHECK(m.find("CUDA error in cudaErrorInvalidValue") != std::string::npos);
        CHECK(m.find("test_device_memory_cuda.cpp") != std::string::npos);
        CHECK(m.find("cudaErrorInvalidValue") != std::string::npos);
    }
    try {
        CUBLAS_CHECK(CUBLAS_STATUS_INVALID_VALUE);
        FAIL("CUBLAS_CHECK did not throw");
    } catch (const Error& e) {
        const std::string m = e.what();
        CHECK(m.find("cuBLAS error in CUBLAS_STATUS_INVALID_VALUE") != std::string::npos);
        CHECK(m.find("CUBLAS_STATUS_INVALID_VALUE (a size or leading dimension)") != std::string::npos);
    }
}

TEST_CASE("cuda: DeviceBuffer upload/download round trip, zero, move") {
    ATTEND_REQUIRE_GPU();
    const auto host = random_vector(1000, 1);
    DeviceBuffer<float> d(host);
    CHECK(d.size() == 1000);
    CHECK(d.to_host() == host);
    DeviceBuffer<float> moved = std::move(d);
    CHECK(d.get() == nullptr);
    CHECK(moved.to_host() == host);
    moved.zero();
    CHECK(moved.to_host() == std::vector<float>(1000, 0.0f));
    CHECK_THROWS_AS(moved.upload(std::vector<float>(1001)), Error);  // more than the buffer holds
}

TEST_CASE("cuda: DeviceArena hands out aligned blocks, rewinds to a mark, grows once, and names the shortfall") {
    ATTEND_REQUIRE_GPU();
    cuda::DeviceArena arena(1 << 20);
    float* a = arena.alloc<float>(10, "a");
    const size_t mark = arena.mark();
    float* b = arena.alloc<float>(100, "b");
    CHECK(reinterpret_cast<uintptr_t>(a) % 256 == 0);
    CHECK(reinterpret_cast<uintptr_t>(b) % 256 == 0);
    CHECK(b != a);
    arena.release(mark);
    CHECK(arena.alloc<float>(100, "b again") == b);  // the same block again: no new allocation
    CHECK(arena.blocks() == 1);

    // More than the first block holds: a second block, at least as large as all before it, and the offsets go on.
    float* big = arena.alloc<float>(1 << 20, "activations");
    CHECK(arena.blocks() == 2);
    CHECK(arena.capacity() >= (size_t(1) << 20) + (size_t(4) << 20));
    CHECK(reinterpret_cast<uintptr_t>(big) % 256 == 0);
    CHECK_NOTHROW(CUDA_CHECK(cudaMemset(big, 0, (size_t(1) << 20) * sizeof(float))));  // all of it is real memory
    const size_t peak = arena.high_water();
    CHECK(peak > (size_t(1) << 20));
    // The next step rewinds and asks the same again: the blocks it has serve it, in the same places.
    arena.release(0);
    CHECK(arena.alloc<float>(10, "a") == a);
    CHECK(arena.alloc<float>(100, "b") == b);
    CHECK(arena.alloc<float>(1 << 20, "activations") == big);
    CHECK(arena.blocks() == 2);
    CHECK(arena.high_water() == peak);
    arena.release(0);

    // What no GPU holds is refused with the name of what asked and the sizes.
    try {
        arena.alloc_bytes(size_t(1) << 50, "attention scores");
        FAIL("the arena did not refuse");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("attention scores") != std::string::npos);
        CHECK(std::string(e.what()).find("MiB") != std::string::npos);
    }
    CHECK(arena.blocks() == 2);
    CHECK(arena.alloc<float>(10, "a") == a);  // the refusal changed nothing
    // A real runtime error names the call.
    try {
        CUDA_CHECK(cudaMemcpy(a, nullptr, 4, cudaMemcpyHostToDevice));
        // Some drivers accept a null host pointer for a pageable copy; only check the message if it failed.
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("cudaMemcpy") != std::string::npos);
    }
}

TEST_CASE("cuda: cuBLAS handle is created") {
    ATTEND_REQUIRE_GPU();
    CHECK(cuda::cublas_handle() != nullptr);
}
