// Refusals at the API: a call that must throw pooljit::Error naming the field, value and rule, and descriptors
// that resolve() and create() must refuse or accept.
#pragma once

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <vector>

namespace pooljit::test {

// A descriptor as text for traces, even one that to_string refuses.
template <typename Desc>
std::string describe(const Desc& d) {
    try {
        return pooljit::to_string(d);
    } catch (const std::exception& e) {
        return std::string("(to_string threw: ") + e.what() + ")";
    }
}

// Runs `f`, which must throw pooljit::Error with every one of `needles` in its message.
template <typename F>
void expect_error(const char* call, F&& f, const std::vector<std::string>& needles) {
    SCOPED_TRACE(call);
    try {
        f();
    } catch (const pooljit::Error& e) {
        const std::string what = e.what();
        for (const std::string& needle : needles)
            EXPECT_NE(what.find(needle), std::string::npos) << "message lacks \"" << needle << "\": " << what;
        return;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "threw a non-pooljit::Error exception: " << e.what();
        return;
    } catch (...) {
        ADD_FAILURE() << "threw a non-std exception";
        return;
    }
    ADD_FAILURE() << "did not throw (expected pooljit::Error naming the field and value)";
}

// Refused by resolve() and by create(), naming the field.
template <typename Desc>
void expect_rejected(const Desc& d, const std::vector<std::string>& needles) {
    SCOPED_TRACE(describe(d));
    expect_error("resolve", [&] { (void)pooljit::resolve(d); }, needles);
    expect_error("Primitive::create", [&] { (void)pooljit::Primitive::create(d); }, needles);
}

// `create` is false for descriptors of huge tensors: only resolve() runs, so no code is planned for them.
template <typename Desc>
void expect_accepted(const Desc& d, bool create = true) {
    SCOPED_TRACE(describe(d));
    EXPECT_NO_THROW((void)pooljit::resolve(d));
    if (create) {
        EXPECT_NO_THROW((void)pooljit::Primitive::create(d));
    }
}

}  // namespace pooljit::test
