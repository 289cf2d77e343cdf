// The byte bands' plan against the window definition (test_byte_bands.cpp, test_byte_shuffle_bands.cpp).
#pragma once

#include "jit/plan/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pooljit::test {

// Every lane of every band (at most `lanes` a band) reads, over its permutes, exactly its window's real columns
// (each at least once, no other), from V's bytes of the chunk's registers (`lanes` bytes each), and its rows'
// registers start at the window's first row: worked out here from the definition, output (oh, ow) reading columns
// ow * sw - pw + k * dw inside [0, W).
inline void expect_bands_read_the_windows(const jit::KernelPlan& plan, std::int64_t lanes, std::int64_t sw,
                                          std::int64_t dw, std::int64_t pw) {
    const jit::ByteBands& b = plan.byte_bands;
    ASSERT_TRUE(b.enabled());
    ASSERT_EQ(plan.lanes, lanes);
    ASSERT_EQ(b.permutes.size(), b.chunks.size() * static_cast<std::size_t>(b.kernel_w));
    for (const jit::ByteBandChunk& chunk : b.chunks) {
        ASSERT_LE(chunk.outputs * b.rows, lanes);
        for (std::int64_t lane = 0; lane < chunk.outputs * b.rows; ++lane) {
            const std::int64_t g = lane / chunk.outputs, ow = chunk.out_begin + lane % chunk.outputs;
            std::vector<std::int64_t> expected, read;
            for (std::int64_t k = 0; k < b.kernel_w; ++k)
                if (const std::int64_t c = ow * sw - pw + k * dw; c >= 0 && c < b.width) expected.push_back(c);
            for (int k = 0; k < b.kernel_w; ++k) {
                const std::int64_t source = b.permutes[chunk.first_permute + static_cast<std::size_t>(k)][static_cast<std::size_t>(lane)];
                ASSERT_LT(source, lanes * chunk.registers) << "lane " << lane;
                // V's lane g * stride_h * pitch + c - in_begin holds column c of output row r0 + g's rows.
                const std::int64_t c = source + chunk.in_begin - g * b.stride_h * b.pitch;
                if (std::find(read.begin(), read.end(), c) == read.end()) read.push_back(c);
            }
            std::sort(read.begin(), read.end());
            EXPECT_EQ(read, expected) << "band row " << g << ", output column " << ow;
        }
    }
}

}  // namespace pooljit::test
