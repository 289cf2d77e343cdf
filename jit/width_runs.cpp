#include "jit/plan.hpp"

#include <algorithm>

namespace pooljit::jit {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); }
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

std::vector<WidthRun> width_runs(std::int64_t out, std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                 std::int64_t dilation, std::int64_t pad_begin) {
    const std::int64_t span = (kernel - 1) * dilation;  // last tap's offset from the first
    // Taps t with 0 <= first + t * dilation < in are real elements; the others are padding.
    const auto taps_of = [&](std::int64_t o) {
        const std::int64_t first = o * stride - pad_begin;
        const std::int64_t begin = first >= 0 ? 0 : ceil_div(-first, dilation);
        const std::int64_t end = in - first <= 0 ? 0 : std::min(kernel, ceil_div(in - first, dilation));
        return begin < end ? std::pair{begin, end} : std::pair<std::int64_t, std::int64_t>{0, 0};
    };
    // Outputs whose whole window is real (interior), and those whose window lies wholly before or after the
    // input, come in closed form, so planning costs O(kernel span / stride), not O(out).
    const std::int64_t interior_begin = std::max<std::int64_t>(0, ceil_div(pad_begin, stride));
    const std::int64_t interior_end = std::min(out, floor_div(in - 1 - span + pad_begin, stride) + 1);
    const std::int64_t before_end = std::clamp<std::int64_t>(ceil_div(pad_begin - span, stride), 0, out);
    const std::int64_t after_begin = std::clamp<std::int64_t>(ceil_div(in + pad_begin, stride), 0, out);

    std::vector<WidthRun> runs;
    auto add = [&](std::int64_t o, std::int64_t end, std::pair<std::int64_t, std::int64_t> taps) {
        if (!runs.empty() && runs.back().out_end == o && runs.back().tap_begin == taps.first &&
            runs.back().tap_end == taps.second) {
            runs.back().out_end = end;
        } else {
            runs.push_back({o, end, taps.first, taps.second});
        }
    };
    for (std::int64_t o = 0; o < out;) {
        std::int64_t end = o + 1;
        if (o >= interior_begin && o < interior_end) end = interior_end;
        else if (o < before_end) end = before_end;
        else if (o >= after_begin) end = out;
        add(o, end, taps_of(o));
        o = end;
    }
    return runs;
}

}  // namespace pooljit::jit
