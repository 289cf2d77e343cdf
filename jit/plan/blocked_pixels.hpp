// The plan of blocked_byte_pixels (KernelPlan::blocked_pixels): blocked u8/s8 max pools folded into their lane
// axis (folds_blocks in plan.hpp). Internal to jit/.
#pragma once

#include <cstdint>
#include <vector>

namespace pooljit::jit {

// Blocked pixels (blocked_byte_pixels): nCx8c / nCx16c u8/s8 max pools at stride 1 or 2 along the width (or of
// one output a row), planned as the lane-axis problem of blocks_folded() (each channel block a planar channel of
// rows of pixels of `block` bytes, the block's lanes its last axis). A vector holds vector_bytes / block output
// pixels of one row: for each pair offset o (the window's width taps t * dilation_w - pad_w, in pixels from s x,
// at stride 2 two neighbouring taps a pair where they are), s vectors load the s G pixels from s x + o of each
// window row, merged down the rows first (integers: the order is of no consequence), then at stride 2 split into
// their even pixels (tap o) and odd pixels (tap o + 1), each a max into the outputs (`shifted` and `whole_row`
// below load each pixel once instead). Loads and stores at the row's ends go under masks of whole pixels.
// Output rows [begin, begin + count) whose windows' real rows are the kernel rows [tap_begin, tap_end).
struct BlockedPixelRun {
    std::int64_t begin = 0, count = 0, tap_begin = 0, tap_end = 0;
    friend bool operator==(const BlockedPixelRun&, const BlockedPixelRun&) = default;
};
// A load pair: the 2 G pixels from 2x + offset; its even pixels are a width tap, its odd ones too where `odd`.
struct BlockedPixelPair {
    std::int64_t offset = 0;
    bool odd = false;
    friend bool operator==(const BlockedPixelPair&, const BlockedPixelPair&) = default;
};
struct BlockedPixels {
    int block = 0;         // bytes a pixel (8 or 16); 0: not this code
    int vector_bytes = 0;  // 32 (ymm) or 64 (zmm)
    std::int64_t in_h = 1, in_w = 0, out_h = 1, out_w = 0;
    int kernel_h = 1, kernel_w = 1, stride_h = 1, dilation_h = 1, dilation_w = 1;
    std::int64_t pad_h = 0, pad_w = 0;          // pads before the input
    int stride_w = 2;                           // 1 or 2
    std::int64_t src_row_bytes = 0, dst_row_bytes = 0;  // row pitches (bytes)
    std::vector<BlockedPixelRun> runs;                  // the output rows, in order
    std::vector<BlockedPixelPair> pairs;                // by offset
    // Each chunk's own 2G pixels loaded once a window row (from 2x, whole vectors) and split into its even and
    // odd pixels; a width tap 2m (or 2m + 1) from 2x is those shifted by m outputs, the chunk before's or after's
    // moving in (valignq; ymm: vperm2i128, and vpalignr for 8-byte pixels, whose split then takes a vpermq to
    // keep the outputs in order). Where |m| <= G; else the pairs above load at each offset.
    bool shifted = false;
    // One output a row whose window holds every pixel of the row (a global pool along the width): the row's
    // vectors merged into a few maxima in flight, then across the vector's G pixels (log2 G shuffles), one pixel
    // stored.
    bool whole_row = false;
    // A partial last block (PlanOptions::folded_block_tail): its real channels; the folded problem's last
    // tail_planes channels are its planes, which the kernel's tail entry computes with every output's lanes from
    // tail_lanes on stored as 0. 0: whole blocks, one entry.
    std::int64_t tail_lanes = 0, tail_planes = 0;
    bool enabled() const { return block > 0; }
    std::int64_t pixels() const { return block > 0 ? vector_bytes / block : 0; }  // outputs a vector (G)
    std::int64_t chunks() const { return block > 0 ? (out_w + pixels() - 1) / pixels() : 0; }
    // Shifted taps: the chunks before and after the current one its registers hold (stride 2: 1; stride 1: 2).
    std::int64_t reach_chunks() const { return stride_w == 1 ? 2 : 1; }
    // The chunks (G outputs from output c G) whose pairs all load whole vectors inside the row: [first, end).
    std::int64_t interior_begin() const;
    std::int64_t interior_end() const;
    // Shifted taps: each width tap o = stride_w m + phase as (phase, m), in the pairs' order; the chunks before
    // and after the current one the taps read (each at most reach_chunks()); the chunks from 0 that run in the
    // loop (their loads, and those of the chunks ahead they read, inside the row; their outputs whole).
    struct ShiftedTap {
        int phase = 0;
        std::int64_t m = 0;
    };
    std::vector<ShiftedTap> shifted_taps() const;
    std::int64_t chunks_back() const;
    std::int64_t chunks_ahead() const;
    std::int64_t shifted_loop_chunks() const;
    // A window of the whole row over a dense plane (rows one after another, dilation 1): its real rows are one
    // span of pixels.
    bool whole_rows_one_span() const { return dilation_h == 1 && src_row_bytes == in_w * block; }

    friend bool operator==(const BlockedPixels&, const BlockedPixels&) = default;
};

}  // namespace pooljit::jit
