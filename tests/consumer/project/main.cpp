// Creates and runs OpenVINO MaxPool-8 Example 4 (same_upper, 2x2 kernel, two channels, with indices) through
// the installed or embedded pooljit and checks the spec's answer. Exit status 0 only when everything matches.
#include <pooljit/pooljit.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

int main() {
    namespace pj = pooljit;
    try {
        pj::MaxPoolDesc d;
        d.src = {pj::DType::f32, pj::Layout::ncx, {1, 2, 3, 3}};
        d.kernel = {2, 2};
        d.strides = {1, 1};
        d.auto_pad = pj::AutoPad::same_upper;
        d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};

        const std::vector<float> src = {-1, 2, 3, 4, 5, -6, -7, 8, 9,  //
                                        2, -1, 5, 6, -7, 1, 8, 2, -3};
        const std::vector<float> want_dst = {5, 5, 3, 8, 9, 9, 8, 9, 9,  //
                                             6, 5, 5, 8, 2, 1, 8, 2, -3};
        const std::vector<std::int64_t> want_idx = {4, 4, 2, 7, 8, 8, 7, 8, 8,  //
                                                    12, 11, 11, 15, 16, 14, 15, 16, 17};

        const pj::Primitive p = pj::Primitive::create(d);
        if (p.dst_desc().dims != std::vector<std::int64_t>{1, 2, 3, 3}) {
            std::fprintf(stderr, "consumer: wrong dst dims\n");
            return 1;
        }
        std::vector<float> dst(want_dst.size());
        std::vector<std::int64_t> idx(want_idx.size());
        p.execute(src.data(), dst.data(), idx.data());

        int failures = 0;
        for (std::size_t i = 0; i < dst.size(); ++i) {
            if (dst[i] != want_dst[i] || idx[i] != want_idx[i]) {
                std::fprintf(stderr, "consumer: output %zu is %g (index %lld), want %g (index %lld)\n", i,
                             static_cast<double>(dst[i]), static_cast<long long>(idx[i]),
                             static_cast<double>(want_dst[i]), static_cast<long long>(want_idx[i]));
                ++failures;
            }
        }
        if (failures != 0) return 1;
        std::printf("consumer: MaxPool-8 example 4 OK (%s)\n", p.impl_name().c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "consumer: %s\n", e.what());
        return 1;
    }
}
