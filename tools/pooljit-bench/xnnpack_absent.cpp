// pooljit-bench built without XNNPACK (libxnnpack-dev or libpthreadpool-dev absent at configure time, or
// -DPOOLJIT_BENCH_XNNPACK=OFF).
#include "xnnpack.hpp"

namespace pooljit_bench {

bool xnnpack_built() { return false; }
std::string xnnpack_description() {
    return "XNNPACK: not built (install libxnnpack-dev and libpthreadpool-dev and reconfigure)";
}
void xnnpack_set_threads(int) {}
XnnpackResult xnnpack_time(const pooljit::Problem&, const void*, const void*, std::size_t, const TimingPlan&, std::size_t) {
    return {};
}

}  // namespace pooljit_bench
