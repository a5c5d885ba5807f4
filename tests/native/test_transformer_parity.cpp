// A small Transformer (embedding * sqrt(C) + d2l positional encoding + nn.Transformer + output projection)
// against PyTorch 1.13: logits and EVERY parameter gradient of the mean cross entropy, given torch's dL/dlogits.
// Two cases: "post" (post-LN, ReLU, separate embeddings) and "pre" (pre-LN, GELU, tied embeddings).
// Metric: relative_error = max |ours - torch| / max |torch| per tensor; tolerance 1e-4.
#include "model/transformer.h"
#include "train/transformer_backward.h"
#include "transformer_test_util.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace attend;
using namespace attend_test;

namespace {

constexpr double kTolerance = 1e-4;

void check_case(const std::string& name) {
    const SafeTensors f = load_fixture("transformer_small.safetensors");
    const TransformerConfig config =
        transformer_config_from_json(nlohmann::json::parse(f.metadata().at(name + ".config")));
    Transformer model(config);
    load_parameters(model.params, f, name + ".");
    // Every parameter torch has is one of ours and vice versa.
    size_t torch_parameters = 0;
    for (const auto& tensor : f.names())
        if (tensor.rfind(name + ".grad.", 0) == 0) ++torch_parameters;
    CHECK(torch_parameters == model.params.specs().size());

    const int B = 2, S = 5, T = 4, V = config.tgt_vocab;
    auto src = f.ints(name + ".src"), tgt = f.ints(name + ".tgt"), src_valid = f.ints(name + ".src_valid_lens"),
         tgt_valid = f.ints(name + ".tgt_valid_lens");
    TransformerActivations acts;
    plan_transformer(acts, config, B, S, T);
    transformer_forward(acts, model, src.data(), src_valid.data(), tgt.data(), tgt_valid.data());
    auto logits = f.floats(name + ".logits", {B, T, V});
    CHECK(relative_error(acts.logits, logits.data(), logits.size()) < kTolerance);

    auto dlogits = f.floats(name + ".dlogits", {B, T, V});
    transformer_backward(model, acts, dlogits.data(), src.data(), tgt.data());
    for (const auto& spec : model.params.specs()) {
        CAPTURE(spec.name);
        auto ref = f.floats(name + ".grad." + spec.name, shape64(spec.shape));
        const float* got = model.params.grad_at(spec.offset);
        if (spec.name.find("k_proj.bias") != std::string::npos) {
            // Exactly zero in exact arithmetic (softmax ignores a shift shared by a whole row): compare absolutely.
            for (size_t i = 0; i < spec.size; ++i) CHECK(std::fabs(got[i] - ref[i]) < 1e-6);
            continue;
        }
        CHECK(relative_error(got, ref.data(), spec.size) < kTolerance);
    }
}

}  // namespace

TEST_CASE("transformer parity: post-LN nn.Transformer, logits and all parameter gradients (1e-4 relative)") {
    check_case("post");
}

TEST_CASE("transformer parity: pre-LN, GELU, tied embeddings, logits and all parameter gradients (1e-4 relative)") {
    check_case("pre");
}
