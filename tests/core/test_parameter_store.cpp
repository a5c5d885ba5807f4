#include "error.h"
#include "model/parameter_store.h"

#include <doctest/doctest.h>

#include <limits>

using namespace attend;

TEST_CASE("parameter store: offsets are contiguous in declaration order and views name the right floats") {
    ParameterStore store;
    size_t a = store.declare("encoder.layers.0.self_attn.q_proj.weight", {3, 4});
    size_t b = store.declare("encoder.layers.0.self_attn.q_proj.bias", {3});
    size_t c = store.declare("decoder.out.weight", {2, 5});
    CHECK(a == 0);
    CHECK(b == 12);
    CHECK(c == 15);
    CHECK(store.size() == 25);
    store.allocate();
    CHECK(store.has_grads());
    CHECK(store.value("encoder.layers.0.self_attn.q_proj.bias") == store.values() + 12);
    CHECK(store.grad("decoder.out.weight") == store.grads() + 15);
    CHECK(store.spec("decoder.out.weight").shape == std::vector<int>{2, 5});
    REQUIRE(store.specs().size() == 3);
    CHECK(store.specs()[1].name == "encoder.layers.0.self_attn.q_proj.bias");
    for (size_t i = 0; i < store.size(); ++i) CHECK(store.values()[i] == 0.0f);
    store.grads()[7] = 3.0f;
    store.zero_grad();
    CHECK(store.grads()[7] == 0.0f);
}

TEST_CASE("parameter store: bad declarations and look-ups throw attend::Error naming the tensor") {
    ParameterStore store;
    store.declare("w", {2, 2});
    CHECK_THROWS_AS(store.declare("w", {2}), Error);
    CHECK_THROWS_AS(store.declare("z", {2, 0}), Error);
    CHECK_THROWS_AS(store.declare("", {2}), Error);
    CHECK_THROWS_AS(store.value("w"), Error);  // before allocate
    store.allocate(false);
    CHECK_FALSE(store.has_grads());
    CHECK_THROWS_AS(store.grad("w"), Error);
    CHECK_THROWS_AS(store.declare("late", {1}), Error);
    try {
        store.value("missing.weight");
        FAIL("expected attend::Error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("missing.weight") != std::string::npos);
    }
    try {
        store.check_shape("w", {2, 3});
        FAIL("expected attend::Error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("[2, 2]") != std::string::npos);
        CHECK(std::string(e.what()).find("[2, 3]") != std::string::npos);
    }
    CHECK_NOTHROW(store.check_shape("w", {2, 2}));
}

TEST_CASE("parameter store: a shape or a total too large to count in size_t is refused, not wrapped") {
    ParameterStore store;
    const int big = std::numeric_limits<int>::max();
    CHECK_THROWS_WITH_AS(store.declare("huge", {big, big, big}), doctest::Contains("'huge' of shape"), Error);
    CHECK(store.size() == 0);
    CHECK(store.specs().empty());
}
