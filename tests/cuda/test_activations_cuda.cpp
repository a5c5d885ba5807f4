// GELU / ReLU / residual forward and backward against the CPU kernels. Tolerance: 1e-6 absolute + 1e-5 relative
// (erf/exp differ in the last ulps between CUDA's libdevice and the xsimd approximations).
#include "cuda/activations_cuda.h"
#include "cuda_test_util.h"
#include "kernels/activations.h"
#include "train/activations_backward.h"

using namespace attend;
using namespace attend::cuda_test;

TEST_CASE("cuda: relu/gelu/residual forward and backward match the CPU") {
    ATTEND_REQUIRE_GPU();
    for (int n : {1, 7, 1000, 65537}) {
        CAPTURE(n);
        const auto x = random_vector(n, 10, -4.0f, 4.0f), y = random_vector(n, 11), dout = random_vector(n, 12);
        const auto acc0 = random_vector(n, 13), acc1 = random_vector(n, 14);
        auto dX = to_device(x), dY = to_device(y), dDout = to_device(dout);
        DeviceBuffer<float> dOut(n);

        std::vector<float> out(n);
        relu_forward(out.data(), x.data(), n);
        cuda::relu_forward_cuda(dOut.get(), dX.get(), n);
        check_close(dOut.to_host(), out, 0.0, 0.0, "relu forward");

        gelu_forward(out.data(), x.data(), n);
        cuda::gelu_forward_cuda(dOut.get(), dX.get(), n);
        check_close(dOut.to_host(), out, 1e-6, 1e-5, "gelu forward");

        residual_forward(out.data(), x.data(), y.data(), n);
        cuda::residual_forward_cuda(dOut.get(), dX.get(), dY.get(), n);
        check_close(dOut.to_host(), out, 0.0, 0.0, "residual forward");

        std::vector<float> dx = acc0;
        auto dDx = to_device(acc0);
        relu_backward(dx.data(), dout.data(), x.data(), n);
        cuda::relu_backward_cuda(dDx.get(), dDout.get(), dX.get(), n);
        check_close(dDx.to_host(), dx, 0.0, 0.0, "relu backward (accumulating)");

        dx = acc0;
        dDx.upload(acc0);
        gelu_backward(dx.data(), dout.data(), x.data(), n);
        cuda::gelu_backward_cuda(dDx.get(), dDout.get(), dX.get(), n);
        check_close(dDx.to_host(), dx, 1e-6, 1e-5, "gelu backward (accumulating)");

        std::vector<float> da = acc0, db = acc1;
        auto dDa = to_device(acc0), dDb = to_device(acc1);
        residual_backward(da.data(), db.data(), dout.data(), n);
        cuda::residual_backward_cuda(dDa.get(), dDb.get(), dDout.get(), n);
        check_close(dDa.to_host(), da, 0.0, 0.0, "residual backward da");
        check_close(dDb.to_host(), db, 0.0, 0.0, "residual backward db");
    }
}
