// Sets POOLJIT_MAX_ISA for one scope; the library reads it at each create(). Single-threaded tests only:
// setenv races with getenv.
#pragma once

#include <cstdlib>

namespace pooljit::test {

class IsaCap {
public:
    explicit IsaCap(const char* isa) { ::setenv("POOLJIT_MAX_ISA", isa, 1); }
    ~IsaCap() { ::unsetenv("POOLJIT_MAX_ISA"); }
    IsaCap(const IsaCap&) = delete;
    IsaCap& operator=(const IsaCap&) = delete;
};

}  // namespace pooljit::test
