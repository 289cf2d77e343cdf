#include "interleave.hpp"

#include "buffers.hpp"

#include <pooljit/pooljit.hpp>

#include <casegen/casegen.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace pooljit_bench {

namespace {

struct Timed {
    pooljit::Primitive primitive;
    std::unique_ptr<TensorBuffer> src, dst, indices;
    std::vector<double> calls_us;
};

}  // namespace

std::vector<InterleavedTime> time_interleaved(const std::vector<Case>& cases, int rounds, std::uint64_t seed,
                                              std::size_t buffer_offset) {
    std::vector<Timed> timed(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        Timed& t = timed[i];
        t.primitive = pooljit::create(cases[i].desc);
        const std::vector<std::uint8_t> data = pooljit::casegen::activation_data(t.primitive.src_desc(), seed + i);
        t.src = std::make_unique<TensorBuffer>(data.data(), pooljit::casegen::byte_size(t.primitive.src_desc()), buffer_offset);
        t.dst = std::make_unique<TensorBuffer>(pooljit::casegen::byte_size(t.primitive.dst_desc()), buffer_offset);
        const std::size_t index_bytes = t.primitive.has_indices() ? pooljit::casegen::byte_size(t.primitive.indices_desc()) : 0;
        t.indices = std::make_unique<TensorBuffer>(index_bytes, buffer_offset);
        t.calls_us.reserve(static_cast<std::size_t>(rounds));
    }
    const auto execute = [](Timed& t) {
        t.primitive.execute(t.src->data(), t.dst->data(), t.primitive.has_indices() ? t.indices->data() : nullptr);
    };
    for (Timed& t : timed) execute(t);  // first touch of dst and indices
    using Clock = std::chrono::steady_clock;
    for (int round = 0; round < rounds; ++round)
        for (Timed& t : timed) {
            const auto start = Clock::now();
            execute(t);
            t.calls_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        }
    std::vector<InterleavedTime> times;
    times.reserve(timed.size());
    for (Timed& t : timed) {
        std::sort(t.calls_us.begin(), t.calls_us.end());
        times.push_back({t.calls_us.front(), t.calls_us[t.calls_us.size() / 10]});
    }
    return times;
}

void print_interleaved(std::FILE* out, const std::vector<Case>& cases, const std::vector<InterleavedTime>& times,
                       int rounds, std::size_t label_width) {
    fmt::print(out, "\ninterleaved: {} calls of each problem, the problems in turn (pooljit execute, one call timed at a "
                    "time); the lowest call and the tenth percentile, microseconds\n", rounds);
    fmt::print(out, "{:<{}} {:>10} {:>10}\n", "problem", label_width, "lowest us", "p10 us");
    for (std::size_t i = 0; i < cases.size(); ++i)
        fmt::print(out, "{:<{}} {:>10.2f} {:>10.2f}\n", cases[i].label.substr(0, label_width), label_width,
                   times[i].lowest_us, times[i].tenth_us);
}

}  // namespace pooljit_bench
