// The strategy registry: one table naming every strategy and sub-strategy the planner can choose, with example
// problems that land on it and the ISAs that claim it. The tests are driven by it (each example must plan to its
// strategy on each claimed ISA and on no other, and must match the reference on each claimed ISA the CPU has),
// and so is pooljit-warmup's compile-only check, so a planner change cannot quietly drop a strategy.
#pragma once

#include "jit/plan/plan.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace pooljit::jit {

enum class StrategyId {
    nxc_segments,             // channels last: lanes are channels, straight-line code per run of equal windows
    ncx_segments,             // planar: lanes are consecutive outputs along the width
    computed_windows,         // windows computed at run time (irregular adaptive rows, windows far wider than rows)
    paired_lanes,             // planar lanes at stride 2: two loads and a deinterleave
    gathered_lanes,           // planar lanes at a stride above 2: gathered through the stack
    looped_width_taps,        // a window's width taps in a loop (long 1-D windows)
    unrolled_outer_taps,      // fast items of rows with the most common outer taps: those taps in straight-line code
    channel_sweep,            // channels last, memory-bound: several channel blocks per call
    balanced_blocks,          // channels last, memory-bound: equal blocks in place of full blocks and a tail
    width_ranges,             // channels-last rows computed in pieces along the width (threads)
    nan_scan,                 // float rows: a NaN scan, then a fast copy of the row code or the exact one
    nan_watch,                // float rows bound by memory: the fast copy watches its loads, the exact one reruns
    planar_nan_watch,         // the watch in planar rows of plain items read by few windows (no second pass)
    shared_watch,             // watched channels-last rows: each input element into the watch once per call
    tap_passes,               // channels last, wide pixels: windows in passes of width taps over all swept blocks
    prefetch,                 // planar 2-D/3-D rows prefetch the input rows ahead
    masked_items,             // planar fast rows: border outputs share vectors with interior ones through masks
    taps_as_lanes,            // planar fast rows of few outputs: a window's width taps are the lanes
    whole_plane,              // planar fast rows whose window is the whole plane, read as one span
    byte_planes,              // planar u8/s8 whole planes: many planes' maxima reduced together in byte lanes
    planes_in_registers,      // small planes loaded into registers, outputs gathered by permutes
    byte_planes_in_registers, // planes in registers of u8/s8 in byte lanes, gathered by byte permutes (VBMI)
    flat_planes,              // planar u8/s8 planes, outputs at their inputs' positions: a plane one span of vectors
    byte_bands,               // planar u8/s8 2-D max pools: bands of outputs from their rows' maxima by byte permutes (VBMI)
    row_ring,                 // planar rows keep the row maxima of overlapping windows along h in registers
    dilated_row_ring,         // the row ring for windows dilated along h (calls of rows dilation/stride apart)
    row_ring_indices,         // the row ring with each row maximum's index beside it
    separable_rows,           // planar 2-D values: padded rows, width maxima buffered, then merged down the rows
    separable_row_indices,    // separable rows with each maximum's index beside it (32-bit index lanes)
    separable_pixels,         // channels-last 2-D values: the same over padded rows of a block's pixels
    column_ring,              // channels last: each output column walked down with its window's row maxima
    column_ring_indices,      // the column ring with indices
    vertical_rows,            // channels-last integer pixels ending inside a vector: window rows merged first, flat
    widened_pairs,            // bf16 items: two vectors a load, split into even and odd elements as f32
    even_element_loads,       // planar lanes at stride 2 of bf16, u8, s8: one load, the even elements widened in place
    paired_tap_loads,         // planar lanes at stride 2 loaded as stored or bf16: two neighbouring width taps a pair of loads
    tail_back_reads,          // channels last without opmasks: a partial vector loads the register ending at its last channel
    byte_lanes,               // u8/s8 channels last compared in their own bytes
    byte_rows,                // u8/s8 planar rows in their own bytes, through separable rows
    byte_pairs,               // byte rows of up to 4x4 taps at stride 2 (on AVX2 past the input's borders too), straight from the input rows
    wide_index_lanes,         // 64-bit index lanes beside half vectors of 32-bit compare lanes
    window_relative_indices,  // 32-bit index lanes counted from each window's first tap (planes above 2^31)
    overhanging_windows,      // a window that holds its whole row and is shorter than its kernel: the kernel
                              // overhangs the row, into the padding or, under ceil rounding, past the padded row
    channel_runs,             // channels last in runs shorter than C (nCx8c / nCx16c, views whose channels are
                              // apart): each call inside one run, the runs walked one by one
    row_pitch,                // planar rows of a view whose rows are apart (a row pitch): planes are not one span
    blocked_byte_rows,        // nCx8c / nCx16c u8/s8 at stride 1 along the width: each channel block's rows as
                              // planar rows of bytes, width taps a block apart (folds_blocks)
    blocked_byte_pixels,      // nCx8c / nCx16c u8/s8 at stride 2 along the width: several pixels a vector, the
                              // window's rows merged first, split into even and odd pixels (blocks_as_lanes)
    count
};

const char* name_of(StrategyId id);

// The strategies a plan uses, in StrategyId order.
std::vector<StrategyId> strategies_of(const KernelPlan& plan);
// The same as names, space-separated.
std::string strategy_names(const KernelPlan& plan);

struct StrategyExample {
    // A problem string; without dt= (and idx=) the run-level test runs it in every data type (and index option).
    std::string_view problem;
    // Choices the planner makes only for problems too large to run, forced on this small one.
    PlanOptions options = {};
    // The ISAs whose plans choose the row's strategy for this example, where they are not the row's.
    std::vector<Isa> isas = {};
};

struct StrategyRow {
    StrategyId id;
    std::vector<Isa> isas;  // the ISAs whose plans choose it for the examples
    std::vector<StrategyExample> examples;
};

// Every StrategyId has one row, in StrategyId order.
const std::vector<StrategyRow>& strategy_registry();

}  // namespace pooljit::jit
