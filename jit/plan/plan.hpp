// The planner: a pure function (Problem, Isa) -> KernelPlan (its steps: plan.cpp and the files it names). A plan
// is data: the emitters translate it into instructions and make no decisions of their own; tests assert plans
// without running code.
#pragma once

#include "jit/isa/cpu_traits.hpp"
#include "jit/isa/isa.hpp"
#include "jit/isa/lanes.hpp"
#include "jit/plan/blocked_pixels.hpp"

#include <pooljit/types.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <optional>
#include <vector>

namespace pooljit::jit {

// Byte and index steps for descriptors near the 64-bit limits (strides or dilations of 2^62): computed modulo
// 2^64 (defined behaviour). Where the true value does not fit, the step joins two taps or outputs that do not
// both exist, so the wrapped value is added to a pointer that is never dereferenced.
inline std::int64_t wrap_mul(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
inline std::int64_t wrap_mul(std::int64_t a, std::int64_t b, std::int64_t c) { return wrap_mul(wrap_mul(a, b), c); }
inline std::int64_t wrap_add(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

enum class Strategy {
    nxc_channels,  // channels-last: lanes are channels; one call per (n, channel block, output row)
    ncx_width,     // planar: lanes are consecutive outputs along the innermost axis; one call per (n, c, row)
    ncx_planes,    // planar, small planes: a plane in registers, outputs gathered by permutes (AVX-512), or a
                   // plane's bytes as one flat span of vectors (flat_planes); one call per run of planes of one image
};

// ncx_planes: one permute. The plane's input sits in `PlanePlan::registers` vector registers, element e in lane
// e % lanes of register e / lanes; the plane's outputs, flat in row-major order, go `lanes` to a vector.
// Lanes `lanes_mask` of output vector `vector` take their windows' `tap`-th real tap (scan order) from lanes
// `source` of the register pair (first, second): source lane s < lanes is lane s of `first`, s >= lanes lane
// s - lanes of `second`. Tap 0 initializes a lane; later taps merge into it.
struct PlaneGather {
    int vector = 0, tap = 0, first = 0, second = 0;
    std::uint64_t lanes_mask = 0;
    // Per lane (up to 64: byte lanes), the lane of the pair it takes, below 2 x lanes (0 where the lane is not in
    // lanes_mask).
    std::array<std::uint8_t, 64> source{};
    std::array<std::int64_t, 16> index{};  // with indices (32- or 64-bit lanes): per lane, the spatial index of its tap

    friend bool operator==(const PlaneGather&, const PlaneGather&) = default;
};

// Planar u8/s8 windows of the whole plane without indices (global pools, adaptive pools to one bin): each plane
// read in vectors of `vector_bytes` byte lanes (the last one overlapping the one before where the plane is not a
// whole number of them: a maximum may read an element twice), and the planes' vectors reduced `vector_bytes` at
// a time together, each level of the reduction one interleave of two partial vectors and a max, so that one
// vector ends up holding the maxima of that many consecutive planes in order. A plane's maximum alone would be
// a reduction across the lanes of its own vector (log2 of the lanes of shuffles and maxes a plane).
struct BytePlanes {
    int vector_bytes = 0;       // 16, 32 or 64 (at most the plane's bytes); 0: not this code
    std::int64_t elements = 0;  // bytes of a plane (one contiguous span)
    // A plane's maximum: its loads (whole vectors, then the overlapping last one) taken in turn by `chains`
    // running maxima (1, 2 or 4), the whole vectors past the first `chains` in a loop of `loop_passes` passes
    // of `chains` vectors where there are many (0: straight-line code), in a routine the group's planes share
    // where a plane takes more than a few loads (shared_routine: one call a plane, not the loads unrolled 16,
    // 32 or 64 times).
    int chains = 1;
    std::int64_t loop_passes = 0;
    bool shared_routine = false;
    bool enabled() const { return vector_bytes > 0; }
    std::int64_t whole_vectors() const { return vector_bytes > 0 ? elements / vector_bytes : 0; }
    std::int64_t loads() const { return whole_vectors() + (vector_bytes > 0 && elements % vector_bytes != 0 ? 1 : 0); }

    friend bool operator==(const BytePlanes&, const BytePlanes&) = default;
};

// Planar u8/s8/s32/f32 2-D values at stride 1 whose every output sits at its input's position (pads of the
// window's extent - 1 along each axis: SPPF, SPP, Inception's 3x3 p1, a 3x3 dilated by 2 with p2), in planes of a
// few vectors: a plane is one flat
// span of vectors that cross its rows, where rows narrower than a vector leave lanes idle. A call's planes go one
// by one through two passes:
//   - width: each vector's maximum over the width taps (dilation_w apart), each tap loaded at its offset in the plane and its lanes
//     whose tap lies in another row (column + dx outside [0, W)) set to the empty value by a mask of the plan
//     (one per phase of the vector along the row and tap); a load that would start before the plane or end past
//     it loads the plane's first or last vector and moves its elements into place (the lanes moved in are
//     masked); stored into a buffer of the plane with `pad_h` rows of the empty value before it and
//     `extent_h() - 1 - pad_h` after;
//   - height: each vector's maximum over the buffer's rows of its window (dilation_h rows apart), stored.
// The plane's last vector overlaps the one before where the plane is not a whole number of vectors. f32 planes
// under nan=propagate sum each vector's own elements into a watch; a plane whose watch ends NaN is computed again
// by exact compares (the first NaN of each window).
struct FlatPlanes {
    int vector_bytes = 0;  // 16 or 32 (32 for 32-bit elements); 0: not this code
    int lanes = 0;         // elements a vector
    std::int64_t width = 0, height = 0;
    // Elements from a row's start to the next's in the input (and the buffer) and in the output: the width, or a
    // view's row pitch, where both passes take a row at a time (pitched()).
    std::int64_t pitch = 0, out_pitch = 0;
    int kernel_w = 0, kernel_h = 0, pad_w = 0, pad_h = 0;  // pads before the input
    int dilation_w = 1, dilation_h = 1;                     // taps this many elements (rows) apart
    bool converts_plane = false;  // bf16 planes widened to f32 once, into the stack (not each width tap as it loads)
    bool enabled() const { return vector_bytes > 0; }
    std::int64_t elements() const { return height > 0 ? (height - 1) * pitch + width : 0; }  // the plane's span
    bool pitched() const { return pitch != width || out_pitch != width; }  // rows apart in the input or output
    // A window's span along the width and the height: (kernel - 1) * dilation + 1.
    std::int64_t extent_w() const { return std::int64_t{kernel_w - 1} * dilation_w + 1; }
    std::int64_t extent_h() const { return std::int64_t{kernel_h - 1} * dilation_h + 1; }
    // Vectors of a plane: whole ones, then one overlapping the last whole one where the plane is not whole vectors.
    std::int64_t vectors() const { return lanes > 0 ? (elements() + lanes - 1) / lanes : 0; }
    // A row's vectors where the passes take a row at a time: whole ones, then one overlapping the last.
    std::int64_t row_vectors() const { return lanes > 0 ? (width + lanes - 1) / lanes : 0; }
    // Elements of the width maxima's buffer: the plane with the empty rows before and after it.
    std::int64_t buffer_elements() const { return elements() + (extent_h() - 1) * pitch; }

    friend bool operator==(const FlatPlanes&, const FlatPlanes&) = default;
};

// Byte bands (AVX-512 with byte permutes, AVX512_VBMI): planar u8/s8 2-D max pools without indices, a plane's
// outputs computed a vector (a band) at a time, in byte lanes. A band holds `rows` output rows of one column
// chunk's outputs: lane g * chunk.outputs + j is output row r0 + g, output column chunk.out_begin + j. Its input
// is the vertical maximum V of the window's kernel_h rows, held in chunk.registers registers (128 bytes at most):
// for window row kh, the registers load the plane's bytes from row r0 * stride_h - pad_h + kh * dilation_h, column
// chunk.in_begin on, so that V's lane g * stride_h * pitch + c - in_begin is the maximum of column c over output
// row r0 + g's window rows. A lane whose byte lies outside the plane's extent is not loaded (masked: a row in the
// padding adds nothing; lanes no output reads may hold any byte of the extent, a row pitch's gap included). The band's outputs are then the maximum of
// kernel_w byte permutes of V (vpermb, or vpermi2b across two registers), one per width tap, each lane taking its
// window's tap (a tap in the padding takes the window's first real tap again: a max is idempotent), and one
// store under the mask of the band's lanes. Every window has a real row and a real column (the planner checks).
// Where a plane's rows are wider than a vector's outputs or a band's input span, the row goes in column chunks of
// one row each; otherwise one chunk covers the row and a band holds `rows` whole rows (contiguous in the output).
struct ByteBandChunk {
    std::int64_t out_begin = 0, outputs = 0;  // output columns [out_begin, out_begin + outputs) of each band row
    std::int64_t in_begin = 0;                // the input column of V's lane 0
    int registers = 1;                        // V's registers: 1 (vpermb) or 2 (vpermi2b)
    std::size_t first_permute = 0;            // its kernel_w permutes' source lanes in ByteBands::permutes

    friend bool operator==(const ByteBandChunk&, const ByteBandChunk&) = default;
};

// `count` bands from output row `begin`, each `rows` (ByteBands::rows, or fewer for a last band) output rows on.
// A looped run's bands read only bytes inside the plane (no masks): one copy of the code walks them.
struct ByteBandRun {
    std::int64_t begin = 0, count = 0, rows = 0;
    bool looped = false;

    friend bool operator==(const ByteBandRun&, const ByteBandRun&) = default;
};

struct ByteBands {
    int rows = 0;  // output rows a band (0: not this code)
    std::int64_t width = 0, height = 0, out_width = 0, out_height = 0;
    // Bytes from a row to the next in the source and the output planes (a view's row pitch; the width where the
    // planes are dense). A source row pitch is at least the width: the rows do not overlap. Bands of several
    // rows store them at once where the output's rows abut (out_pitch = out_width), else a store a row.
    std::int64_t pitch = 0, out_pitch = 0;
    // The source plane's bytes from its first to its last element: (height - 1) x pitch + width.
    std::int64_t extent() const { return (height - 1) * pitch + width; }
    int kernel_h = 0, kernel_w = 0;
    std::int64_t stride_h = 1, dilation_h = 1, pad_h = 0;
    std::vector<ByteBandChunk> chunks;          // a band row's column chunks, in order
    std::vector<ByteBandRun> runs;              // every output row once, in order
    std::vector<std::array<std::uint8_t, 64>> permutes;  // per chunk, per width tap: each lane's source lane in V
    // Looped bands prefetch (prefetcht0) the input rows the loop's band steps over (rows x stride_h rows, one line in
    // each 64 bytes of a row's width), this many bytes past them. 0: none.
    std::int64_t prefetch_distance = 0;
    bool enabled() const { return rows > 0; }

    friend bool operator==(const ByteBands&, const ByteBands&) = default;
};

// Channels-last integer rows without indices, one call a block of all C channels, pixels C apart whose bytes end
// inside a vector (u8: 72 channels, a 64-byte vector and 8 bytes): each output row first merges its window's real
// input rows into one row on the stack, flat over the row's bytes, a whole vector at a time from the row's start
// (the last one partial), and the row code takes its width taps from that row as from an input of one row. A
// pixel's own vectors, 72 bytes apart, split cache lines on most loads; the flat merge's loads do not, and the
// row code reads each input pixel k_w times, not k_h x k_w. Integer maxima have no order to keep (equal integers
// have equal bits), so the rows merged first give the scan order's maximum.
struct VerticalRows {
    std::int64_t row_bytes = 0;  // an input row's bytes (width x C x the element size); 0: not this code
    int taps = 0;                // the kernel's rows, merged in straight-line code where a window has them all (0: a loop)
    bool enabled() const { return row_bytes > 0; }

    friend bool operator==(const VerticalRows&, const VerticalRows&) = default;
};

// Where a tensor's plane keeps its rows (planes in registers): the plane's elements in scan order are rows of
// `width`, row q (of the outer axes flattened, d then h) starting q / rows_h x step_d + q % rows_h x step_h
// elements past the plane's first. A dense plane's rows follow one another; a view with a row pitch has its own
// steps, and a register's elements are then loaded (stored) a row's piece at a time.
struct PlaneRows {
    std::int64_t width = 1, rows_h = 1, step_h = 0, step_d = 0;
    std::int64_t offset(std::int64_t element) const {
        const std::int64_t q = element / width;
        return q / rows_h * step_d + q % rows_h * step_h + element % width;
    }

    friend bool operator==(const PlaneRows&, const PlaneRows&) = default;
};

// One contiguous run of a register's lanes in memory: lanes [lane, lane + lanes) at `offset` elements past the
// plane's first (lane `lane`'s element).
struct PlanePiece {
    int lane = 0, lanes = 0;
    std::int64_t offset = 0;
};

// The pieces of the `count` elements of a plane from element `first` on (a register's lanes), rows that continue
// one another merged: one piece for a dense plane.
std::vector<PlanePiece> plane_pieces(const PlaneRows& rows, std::int64_t first, std::int64_t count);

struct PlanePlan {
    std::int64_t elements = 0;  // input elements of a plane
    std::int64_t outputs = 0;   // output elements of a plane
    int registers = 0;          // vector registers the plane's input takes
    std::vector<PlaneGather> gathers;  // by output vector, then tap
    PlaneRows src_rows, dst_rows, indices_rows;  // where each tensor's plane keeps its rows

    friend bool operator==(const PlanePlan&, const PlanePlan&) = default;
};

// A stretch of one output row where every item has the same window shape along the width. An item is what one
// pass of the window loop computes: nxc, one output for a block of channel lanes; ncx, `outputs_per_item`
// consecutive outputs, one per lane. The generated code loops `repeat` times over the items of a segment.
struct Segment {
    std::int64_t out_begin = 0;         // first output of the first item
    std::int64_t repeat = 0;            // items in the segment
    std::int64_t outputs_per_item = 1;  // nxc: 1; ncx: lanes in use (at most vectors_per_block * lanes)
    std::int64_t taps = 0;              // real taps along the width of every window (0: empty windows)
    std::int64_t first_position = 0;    // input position of the first real tap of the first item's first output
    std::int64_t item_step = 0;         // input positions between the first real taps of consecutive items
    std::int64_t lane_step = 0;         // ncx: input positions between the first real taps of neighbouring lanes
    // Masked (ncx fast rows, AVX-512): the item's lanes take every tap of the kernel, first_position is tap 0's
    // position (possibly outside the input), and each tap is loaded and merged only in the lanes where it lies
    // inside the input. One item then holds border and interior outputs together.
    bool masked = false;
    // Taps as lanes (ncx fast rows, AVX-512, rows of few outputs for their window width): one output per item;
    // the lanes are its window's real width taps (contiguous), merged input row by input row, and the window's
    // first maximum in scan order is picked across the lanes at the store.
    bool taps_as_lanes = false;
    // Whole plane (ncx fast rows, AVX-512, a row of one output whose window is its whole plane: a global pool,
    // an adaptive pool to one bin): `taps` is the plane's element count, read as one contiguous span in scan
    // order, each element's spatial index its offset in the plane.
    bool whole_plane = false;
    // ncx items of lanes 1 or 2 positions apart: every load of every tap of every item of the segment stays inside
    // the input row at a whole register's width, so a partial vector loads a whole register (the lanes past the
    // item's outputs are never stored) instead of a masked or element-by-element load.
    bool whole_register_loads = false;
    // ncx items of lanes 2 positions apart with exact loads (KernelPlan::even_element_loads): a load that has the
    // input row's element before its span, or the one after it, takes whole dwords or words from there, its even
    // elements widened in place. Every load after an item's first (a later tap or vector) has an element before
    // it; the first (tap 0, first vector) has one where the segment's first real tap is past the row's start,
    // and one after it where the last item's last lane's first tap is not the row's last element.
    bool element_before_later_loads = false;
    bool element_before_first_load = false;
    bool element_after_first_load = false;

    friend bool operator==(const Segment&, const Segment&) = default;
};

// Windows too irregular for segments (adaptive pooling with uneven windows, or windows far wider than the
// input): the code computes each output's window at run time, one output per item, with no table that grows
// with the row. A run of empty windows at either end of the row is stored without computing anything.
struct ComputedWindows {
    bool adaptive = false;
    std::int64_t empty_before = 0, computed = 0, empty_after = 0;  // outputs, in row order
    // max_pool: output o's tap 0 sits at padded position o * stride; the input occupies [pad, pad + in). Every
    // computed output has a padded position below pad + in, so all of this is exact in unsigned 64 bits.
    std::uint64_t first_padded_position = 0;  // of output empty_before
    std::uint64_t stride = 0, kernel = 0, dilation = 0, pad = 0, in = 0;
    // adaptive: windows [o*in/out, ceil((o+1)*in/out)) (128-bit products, 64-bit quotients); uses in and out.
    std::uint64_t out = 0;

    friend bool operator==(const ComputedWindows&, const ComputedWindows&) = default;
};

// A run of consecutive outputs along the innermost spatial axis whose windows all cover the same valid taps
// [tap_begin, tap_end) along that axis. The interior run has tap_begin = 0, tap_end = kernel; runs that touch
// padding have fewer taps; a run with tap_begin == tap_end has empty windows along this axis.
struct WidthRun {
    std::int64_t out_begin = 0, out_end = 0;
    std::int64_t tap_begin = 0, tap_end = 0;

    friend bool operator==(const WidthRun&, const WidthRun&) = default;
};

// The real taps of one output position along an outer axis (d, h): how many, and the input position of the first.
struct OuterTaps {
    std::int64_t count = 1, first_position = 0;
    friend bool operator==(const OuterTaps&, const OuterTaps&) = default;
};

// Consecutive output rows [begin, end) along h whose windows have the same real taps along h and whose first
// taps are `position_step` input rows apart: one kernel call computes them all.
struct RowRun {
    std::int64_t begin = 0, end = 0, position_step = 0;
    friend bool operator==(const RowRun&, const RowRun&) = default;
};

// Buffers of separable rows (KernelPlan::separable), in compare lanes; group_rows 0: not separable. A padded
// row is the input row with pad_lanes of the empty value before it; at stride 2 along the width it is kept as
// two phases, its even lanes and its odd lanes, each in a buffer of its own (the input's even elements in phase
// pad_lanes % 2, from its lane pad_lanes / 2; the odd ones in the other, from lane (pad_lanes + 1) / 2). Each
// phase buffer starts with lead lanes that put the input's first element in it at a vector's start.
// Channels last (separable pixels), a "lane" of the padded row is a pixel of the call's channel block
// (vectors_per_block vectors of compare lanes): one phase, no lead lanes, phase_lanes pixels (the input's, with
// pad_lanes before and the empty value up to the last a tap reads), and maxima_vectors = out_width x
// vectors_per_block. Only one padded row is held: a tap reads a whole pixel just stored, which forwards.
struct SeparableRows {
    std::int64_t group_rows = 0;     // output rows per pass over the buffers
    std::int64_t window_rows = 0;    // the most taps along h (the kernel)
    std::int64_t row_step = 1;       // tap strides along h between an output row's first tap and the next's
    int phases = 1;                  // 1, or 2 at stride 2 along the width
    std::int64_t phase_lanes = 0;    // lanes of each phase's buffer (a whole number of vectors)
    std::array<std::int64_t, 2> lead_lanes{};  // unused lanes at the start of each phase's buffer
    std::int64_t pad_lanes = 0;      // lanes of the empty value before the input's first element
    std::int64_t maxima_vectors = 0; // vectors of one row of maxima (the output row, rounded up)
    // Maxima in flight: the block's accumulators, then registers no other role of the plan takes, up to 8
    // (pixels: a whole number of blocks, so a step takes accumulators / vectors_per_block pixels).
    int accumulators = 0;
    // Separable pixels at stride 1 along the width: outputs a dilation apart (neighbours without dilation) are
    // taken in pairs that share the maximum of the first one's taps 1 .. k - 1 (k + 1 loads and k maxima a pair,
    // not 2k and 2k - 2), where a step's outputs hold two dilations.
    bool paired_width_windows = false;
    // Separable pixels without indices whose output rows are one row of maxima apart (row_step 1) and take two or
    // more: neighbouring output rows are merged in pairs that share the maximum of the first one's rows 1 .. k - 1
    // (k + 1 loads and k maxima a pair of outputs, not 2k and 2k - 2). The accumulators hold two of each.
    bool paired_output_rows = false;
    // Separable pixels without indices at stride 1 along the width: each row's width maxima read the input
    // itself, run by run of the plan's width_runs (the taps each border output has), with no padded copy.
    // A row maximum is NaN exactly where its first tap is, so the maxima are watched for NaN as they are stored,
    // and the few pixels no output reads first (direct_row_unwatched_pixels) one by one after each row.
    bool direct_rows = false;
    // bf16 where the trait splits a load into even and odd elements (IsaCaps::widened_pairs), a shift and an and
    // for 16 elements. Separable pixels: a pixel's vectors 2j and 2j + 1 come from one load, the even elements
    // into the first, the odd ones into the second (not two widening loads); the padded row and the rows of
    // maxima keep each pair in that order, every merge being lane-wise, and store_widened_pair interleaves it
    // back as the outputs are stored. Separable rows at stride 2 along the width: a load's even and odd elements
    // are the two phases' next vectors, with no deinterleave.
    bool widened_pairs = false;
    // Byte rows (1-D, 2-D or 3-D) whose windows all lie inside the input (no padding, no overhang), at stride 2
    // along the width with at most 4 width taps and 4 rows (window_rows along h in each of window_planes planes
    // along d): each output row straight from its window's input rows, no buffers: for each pair of width taps
    // the rows' maximum, each byte pair's maximum in its even byte (a word shift and a max), merged over the
    // pairs, the even bytes packed.
    bool byte_pairs = false;
    std::int64_t window_planes = 1;
    // Byte pairs on a trait without opmasks: a half vector of a row's bytes that would be loaded short (at the
    // row's end, or after the padding before it) loads the whole register inside the row and moves its bytes
    // into place (two shuffles), where a load of 17 to 31 bytes took up to six operations.
    bool shifted_pair_loads = false;
    // Byte pairs on a trait without opmasks, in 2-D calls: an output row that is not the call's last reads and
    // writes whole registers past its row's bytes, where the call reads and writes them later anyway. Its loads
    // may end up to row_read_reach bytes past the row's start (the row pitch and the row: the next output row's
    // window ends at least that far on); with rows_store_whole, the output rows abut, so a row's store may end
    // up to two rows past its start (the next output row, stored after it). The call's last row is exact.
    // 0 / false: exact loads and stores on every row.
    std::int64_t row_read_reach = 0;
    bool rows_store_whole = false;
    // Separable pixels over whole blocks and a channel tail of as many vectors or fewer, the last of them
    // perhaps partial (plan.channel_tail): the tail's calls take the buffers too, a pixel of the tail's vectors,
    // where they would run the row code.
    bool partial_tail = false;
    // The partial vector (of the only block, or of the tail) loads the whole register that ends at the block's
    // last channel, where the pixel's channels before it fill the rest (a block of a register's bytes or more,
    // or a tail after whole blocks of contiguous channels): its lanes sit at the register's top, lane-wise through
    // the buffers, and are stored from there (no masked load a tap).
    bool partial_reads_back = false;
    bool enabled() const { return group_rows > 0; }
    // Padded rows (and rows of maxima) a pass holds: the input rows its output rows' windows read.
    std::int64_t buffered_rows() const { return (group_rows - 1) * row_step + window_rows; }
    std::int64_t row_lanes() const { return phases * phase_lanes; }
    // Where the input's elements land: phase `phase` holds `input_count(phase, in)` of them from its lane
    // `input_start(phase)` (after the lead lanes), the even ones first at stride 2.
    int phase_of_evens() const { return phases == 1 ? 0 : static_cast<int>(pad_lanes % 2); }
    std::int64_t input_start(int phase) const {
        if (phases == 1) return pad_lanes;
        return phase == phase_of_evens() ? pad_lanes / 2 : (pad_lanes + 1) / 2;
    }
    std::int64_t input_count(int phase, std::int64_t in) const {
        if (phases == 1) return in;
        return phase == phase_of_evens() ? (in + 1) / 2 : in / 2;
    }
    friend bool operator==(const SeparableRows&, const SeparableRows&) = default;
};

// What the strides of src, dst and indices allow (Problem::src_strides...), derived once; a dense tensor has
// every fact. A view that breaks one gets the code that does not need it.
struct MemoryFacts {
    // Each row's elements are consecutive in every tensor (width stride 1): planar code, lanes along the width.
    bool rows_contiguous = false;
    // Each plane's rows (and, 3-D, its planes along d) follow one another in every tensor: a plane is one span
    // (whole-plane items, planes in registers).
    bool planes_contiguous = false;
    // Channel c + 1's first row is one row step after channel c's last in every tensor (the channel stride is
    // the outermost axis's extent times its stride; rows contiguous): rows of consecutive planes are one walk
    // of equal row steps (stacked planes), whatever the row pitch.
    bool planes_stack = false;
    // Channels consecutive in runs of this many in every tensor (channels-last code's calls stay inside one):
    // C where the channel stride is 1, the block in nCx8c / nCx16c, 1 where some tensor's channels are apart.
    std::int64_t channel_run = 1;

    friend bool operator==(const MemoryFacts&, const MemoryFacts&) = default;
};

// The facts of a problem's strides.
MemoryFacts memory_facts(const Problem& p);

// Channels-last u8/s8 whose channels are consecutive only in runs shorter than C (nCx8c / nCx16c, a view whose
// channels lie apart) compare in byte lanes from runs of this many channels: a quarter of a ymm (the 256-bit form
// loads a block of 8 or 16 bytes whole), half a zmm (the AVX-512 form's masked byte loads of a 16-byte block ran
// 1.5-1.7x slower than its 32-bit lanes: the stem 48.9 -> 82.5 us). Shorter runs widen to 32-bit lanes.
constexpr std::int64_t min_byte_lane_run(std::int64_t vector_bytes) { return vector_bytes >= 64 ? 32 : 8; }

// Whether the problem's lanes run along the width (planar rows, Strategy::ncx_width and its planes) rather than
// along the channels: ncx tensors whose rows are contiguous, and tensors whose channels are apart in every run
// where their rows are contiguous. Every other view takes channels-last code, in runs of memory.channel_run
// channels (one channel a call where no run is longer).
bool planar_lanes(const Problem& p, const MemoryFacts& m);

struct KernelPlan {
    Isa isa = Isa::ref;
    Strategy strategy = Strategy::nxc_channels;
    DType dtype = DType::f32;
    CompareType compare = CompareType::f32;
    NanPolicy nan = NanPolicy::propagate;
    bool is_float = true;
    int spatial_rank = 2;      // outer axes (d, h) that the window loops walk at run time

    int vector_bytes = 64;     // 64 (zmm) or 32 (ymm)
    int lanes = 16;            // compare-type lanes per vector (half a register: 64-bit index lanes beside 32-bit)
    int vectors_per_block = 1; // nxc: vectors of channels per block (register blocking)
    std::int64_t channel_block = 16;  // nxc: channels per call (vectors_per_block * lanes, or fewer)
    std::int64_t channel_tail = 0;    // nxc: channels in the last, partial block (0: none)
    // nxc: full channel blocks one call of the full entry covers, looped inside each output pixel, so a pixel's
    // channels are read in address order (block by block over a row, the pixels' strided slices fell into a
    // few L1 sets when the pixel is a power of two bytes). The tail block is a call of its own.
    std::int64_t channel_sweep = 1;
    // Swept calls: the bytes from one swept block to the next in src, dst and indices: a block's bytes where the
    // channels are consecutive, the channel block's stride in blocked layouts (set_strides).
    std::int64_t sweep_src_step = 0, sweep_dst_step = 0, sweep_indices_step = 0;
    // nxc: the channels split into equal blocks, none full, in place of full blocks and a tail block
    // (Planner::balance_channel_blocks).
    bool balanced_blocks = false;

    // Innermost spatial axis, in elements of the window (same meaning for both strategies).
    std::int64_t out_width = 1, in_width = 1;
    std::int64_t kernel_w = 1, stride_w = 1, dilation_w = 1, pad_w = 0;
    std::vector<WidthRun> width_runs;  // max_pool only: the border analysis the segments come from
    std::vector<Segment> segments;     // segment mode: the whole row, in output order
    // ncx rows on AVX-512: the row for the fast code (input without NaN), where border outputs share items
    // with interior ones through lane masks, or where the lanes are each window's taps. Empty: the fast code
    // walks `segments` too.
    std::vector<Segment> fast_segments;
    // Taps-as-lanes items keep each lane's scan rank (the row its maximum came from) and pick the window's first
    // maximum by it under opmasks. Otherwise a lane keeps only its maximum, and the first element equal to the
    // window's maximum is searched for in its rows where its bits or index need it (indices, a float zero).
    bool taps_as_lanes_ranked = false;
    bool computed_windows = false;     // true: `walk` replaces `segments`
    ComputedWindows walk;
    // Float rows: one pass over the row's input looks for NaN, then a fast copy of the row code (no NaN policy
    // per tap) or the exact copy runs. Integer rows have one copy.
    bool scan_rows_for_nan = true;
    // The scan of planar bf16/f16 rows tests the elements as stored (their magnitude bits above the infinity's,
    // 16 or 32 bytes at a time) instead of summing widened values (choose_half_float_scan).
    bool scan_half_floats_as_stored = false;
    // Float rows that skip the scan (channels last, bound by memory): the fast copy runs anyway and sums every
    // value it loads into a watch; a row whose watch ends NaN runs again as the exact copy. One max per tap
    // instead of two dependent compares and a blend, and no second pass over the input.
    bool watch_rows_for_nan = false;
    // Watched rows: each vector of the block sums its taps' loads into this many running sums, in turn. One sum
    // was one chain of adds (3 cycles each on Zen 3) through the whole row, and on AVX2 the chain, not the loads,
    // bounded the stem's channels-last rows (f32 111 us where s32, without a watch, ran 75).
    int watch_chains = 1;
    // Fast rows of channels-last items of at most 2 vectors, width taps unrolled: each kernel row's
    // taps go into two chains of maxima (its first and its second half of taps, each started by a load), merged
    // in order at the row's end, the row's maximum then into the accumulator: one max an item row on the
    // accumulator's chain instead of one a tap. A chain keeps its first maximum on ties, and the later chain's
    // maximum replaces the earlier one's only where greater, so the maximum is the first in scan order, as one
    // chain's is. 1: one chain.
    int row_chains = 1;
    // Watched channels-last rows (choose_shared_watch): an input element that several taps of a call read is
    // added to the watch by the first of them only. A width tap below watch_shared_taps_w (counted from the
    // kernel's first tap) reads what a later tap of the previous output of the row read, and a window row below
    // watch_shared_rows_h what a later row of the previous output row of the call read: neither is added again.
    // The row's first output watches all its taps; with shared rows, the sums run through the call (a row after
    // one that saw a NaN sees it too) and a scan of the first row's shared rows starts it. 0: every tap watched.
    std::int64_t watch_shared_taps_w = 0, watch_shared_rows_h = 0;
    // bf16 values-only items of consecutive lanes load each pair of their vectors at once, split into the even
    // and the odd elements as f32, merge them in that order and interleave them back at the store
    // (IsaCaps::widened_pairs): one load, a shift and an and for 16 elements, not two widening loads and two
    // shifts; a shift and a word blend to store, not two shifts, packs and permutes.
    bool widened_pairs = false;
    // Planar rows of bf16, u8 or s8 in whole registers of compare lanes: items at lane stride 2 load each
    // vector's span once and widen its even elements in place (IsaCaps::even_element_loads), no deinterleave.
    bool even_element_loads = false;
    // Planar bf16 lanes at stride 2 in whole registers of lanes, masked items included: each span one word load
    // under an opmask, each dword's even element shifted up in place (IsaCaps::even_word_loads, load_even_words),
    // where two widening loads and a permute took each tap.
    bool even_word_loads = false;
    // Planar fast rows at stride 2 along the width, taps one element apart, no indices: each item merges its
    // width taps two at a time from one pair of loads, the even elements for the first tap and the odd ones
    // for the second (IsaCaps::paired_tap_loads). Half the loads of a tap by tap merge, in the same tap order.
    bool paired_tap_loads = false;
    // Channels last without opmasks, values loaded as stored (no widening, no raw bits, no indices): a block's
    // partial last vector loads a whole register that ends at the block's last channel, where the bytes before
    // it are the block's own or, in a segment whose first real tap is far enough into the row, the pixels
    // before it (Segment::first_position); its lanes sit at the register's top and are stored from there. Where
    // a masked load took each tap (vpmaskmovd runs about one a cycle on Zen 3, a folded max two).
    bool tail_back_reads = false;
    // Channels last, calls sweeping many channel blocks (the pixel's channels span more than a few cache lines),
    // no indices: each window is computed in passes of at most this many width taps of one input row, every
    // pass over all the call's blocks, the partial maxima kept in the output. Each pass reads as many address-
    // ordered streams as it has taps; block by block, a window's taps were a pixel's width apart (a global
    // pool of 2048 channels: 8 KiB) and no prefetcher kept up. 0: block by block.
    std::int64_t tap_pass_taps = 0;
    // ncx fast rows of one item (2-D; indices in 32-bit lanes only) whose windows along h move by one tap every
    // ring_row_interval output rows (dilation / stride, where the stride divides the dilation: 1 without
    // dilation or where the stride equals it, 2 at stride 1 and dilation 2): the
    // maxima of each input row's width taps stay in registers for the next output row of the call, which the
    // executor makes of rows ring_row_interval apart, so a call of whole windows computes one new input row
    // per output row and merges ring_rows row maxima (rows first, then columns: the scan order's first
    // maximum). 0: no ring.
    // Channels last (nxc_channels, AVX-512, stride 1 along h, one block per call; indices only beside 8- and
    // 16-bit data), the same ring turned: each output column is walked down a call's rows (the column ring).
    std::int64_t ring_rows = 0;
    std::int64_t ring_row_interval = 1;
    // Column rings: the most output rows one call walks down each column (the executor splits longer runs);
    // 0: no limit.
    std::int64_t ring_call_rows = 0;
    // ncx 2-D rows without indices whose windows along h share input rows (separable maxima): a call converts
    // each input row once into a row of compare lanes padded with the empty value on both sides (no border
    // items: padding taps read the max's identity), takes the maxima of every output's width taps from it
    // into a buffer of row maxima, and merges each output row's taps_h buffered rows in row order (rows first,
    // ties keeping the earlier: the scan order's first maximum). Calls are made of rows ring_row_interval
    // apart, as for a ring; float calls that see a NaN while converting run the row code instead.
    // Channels last (separable pixels: nxc 2-D values in compare-bound rows, one block of a cache line's channels
    // per call), the same with pixels for lanes: the column ring walked a block's column of pixels a whole pixel
    // apart, and where pixels are a multiple of 1 KiB that column fell into a few L1 sets.
    SeparableRows separable;
    // Whole-plane items of more than a few vectors: a loop over the span (vectors_per_block maxima in flight), not
    // straight-line code; float planes watch for NaN in whole_plane_sums running sums (maximum c adds to sum
    // c % whole_plane_sums), so that the sums' adds are chains as short as the maxima's.
    bool loop_whole_plane = false;
    int whole_plane_sums = 1;
    // Whole-plane items without indices store the plane's maximum itself, searching for the first element equal
    // to it only when it is a float zero (+0 equals -0; elements equal to any other value have its bits; f16's
    // converted back exactly, the fast copy holding no NaN).
    bool whole_plane_stores_maximum = false;
    // ncx_planes: the gathers that compute one plane (the segments are then only the fallback's description).
    PlanePlan plane;
    // ncx_width whole planes of u8/s8 without indices: the planes reduced together in byte lanes (the segments and
    // lanes above then describe the widened whole-plane code the rules would run otherwise).
    BytePlanes byte_planes;
    // ncx_planes of u8/s8 2-D planes at stride 1 whose outputs sit at their inputs' positions: each plane one flat
    // span of vectors across its rows (`plane` is then empty; the segments describe the row code).
    FlatPlanes flat_planes;
    // ncx_planes of u8/s8 2-D planes in bands of outputs from byte permutes (`plane` is then empty).
    ByteBands byte_bands;
    // ncx_planes of blocked u8/s8 planned as their lane-axis fold (folds_blocks): several pixels a vector.
    BlockedPixels blocked_pixels;
    // nxc_channels: rows of the window merged first into a stack row (VerticalRows), then the row code's width taps.
    VerticalRows vertical_rows;
    // Planned for depth_folded(problem) of a 3-D problem (PlanOptions::depth_folded): the executor runs that.
    bool depth_folded = false;
    // Planned for blocks_folded(problem) (PlanOptions::blocks_folded), before any depth fold: the executor runs that.
    bool blocks_folded = false;
    // ncx rows of 2-D and 3-D planes: each output row prefetches the input that the rows `prefetch_distance`
    // bytes on will read, `prefetch_bytes` of it (the input rows one output row steps over), so the stream of
    // planes is in flight before the row code (its NaN scan first) reaches it. 0: no prefetch.
    std::int64_t prefetch_distance = 0, prefetch_bytes = 0;
    // 3-D windows of several planes that share no input row with another output row's, in fast rows of plain
    // items with unrolled outer taps: each item prefetches its own stretch of every row its window reads,
    // prefetch_distance ahead, inside its straight-line window, instead of the row's burst at its start (which
    // covers the rows of the window's first plane only).
    bool prefetch_in_items = false;
    // Channels-last 1-D rows whose calls sweep channel blocks (rows bound by memory), on a trait without opmasks:
    // after each swept block of an output, one prefetch of the line `sweep_prefetch_distance` bytes past its
    // window's first tap for each of the `sweep_prefetch_pixels` input pixels an output steps over
    // (`sweep_prefetch_pixel_bytes` apart). 0: none.
    std::int64_t sweep_prefetch_distance = 0, sweep_prefetch_pixels = 0, sweep_prefetch_pixel_bytes = 0;
    // nxc rows of segments (max_pool): the code computes the outputs [KernelArgs::out_begin, out_end) of each row,
    // its NaN scan reading only their windows' input, so the executor can split a row among threads when a
    // problem has too few images, channel blocks and rows for them (a 1-D signal of one image).
    bool width_ranges = false;
    // Above this many taps along the width, the tap loop is a loop, not unrolled code.
    bool unroll_width_taps = true;
    // Items of fast rows whose windows hold unrolled_taps_h taps along h (and unrolled_taps_d along d, 3-D)
    // merge the window's taps in straight-line code; other rows (borders, other adaptive bins) and the exact
    // copy loop over the outer taps at run time. 0: every row loops.
    std::int64_t unrolled_taps_h = 0, unrolled_taps_d = 0;

    // Byte strides the kernel walks (src, dst): between outputs along the width, between taps along width /
    // outer axes.
    std::int64_t src_step_w = 0;         // bytes between neighbouring positions along the width
    std::int64_t src_tap_stride_w = 0;   // bytes between consecutive width taps (dilation included)
    std::int64_t src_out_stride_w = 0;   // bytes between the first taps of consecutive outputs
    std::int64_t src_tap_stride_h = 0;   // bytes between consecutive taps along axis -2 (0 for 1-D)
    std::int64_t src_tap_stride_d = 0;   // bytes between consecutive taps along axis -3 (0 for 1-D, 2-D)
    std::int64_t dst_out_stride_w = 0;   // bytes between consecutive outputs along the width
    std::int64_t indices_out_stride_w = 0;  // bytes between consecutive outputs' indices along the width
    MemoryFacts memory;                  // what the strides above and the executor's steps come from

    // Indices: the index of an element is channel_term + i0*m0 + i1*m1 + i2*m2 (spatial position i, linear
    // for every axis and storage order; axes dropped by the modulus have multiplier 0). The kernel carries
    // the spatial part; channel_term is added at the store.
    bool has_indices = false;
    DType index_dtype = DType::s64;
    bool index_lanes_64 = false;  // track the spatial part in 64-bit lanes (it can exceed INT32_MAX)
    std::int64_t index_mult[3] = {0, 0, 0};
    std::int64_t index_mult_w = 0;  // index_mult of the innermost axis
    bool wide_index_math = false;   // channel offsets and the final add in 64 bits (s64 output or 64-bit lanes)
    // A plane of more than 2^31 elements with 32-bit compare lanes: lanes hold the index relative to the
    // window's first tap (bounded by the window's extent), and the window's own index is added at the store.
    bool index_relative_to_window = false;
    std::int64_t index_tap_step_w = 0, index_tap_step_h = 0, index_tap_step_d = 0;
    std::int64_t index_out_step_w = 0;
    std::int64_t channel_index_stride = 0;  // index difference between neighbouring channels (nxc lanes)
    // Index difference between neighbouring lanes, per unit of Segment::lane_step (ncx: the width multiplier;
    // nxc: channel_index_stride, lane_step being 1).
    std::int64_t lane_index_unit = 0;

    // Tiling facts the executor walks (it computes nothing of the windows itself): the real taps of every output
    // position along d and h (empty beyond 2^16 output rows: the executor then asks outer_taps_of per row), the
    // runs of output rows along h one call computes (covering every row when taps_h is set), and the output rows
    // per call when a channels-last image's blocks go innermost (their input rows in about half of L1).
    std::vector<OuterTaps> taps_d, taps_h;
    std::vector<RowRun> row_runs_h;
    std::int64_t rows_per_chunk = 1;
    // Swept calls (channel_sweep > 1) may cover fewer full blocks than the sweep (KernelArgs::sweep_blocks): the
    // executor shortens the sweeps of an image whose calls are too few for the threads (a global pool of one
    // image is one call). False where the code's shape follows the sweep: a NaN scan covers the call's channels
    // in one unrolled step.
    bool sweep_splits = false;
    // One output per image and channel whose window is the whole input (global pools, adaptive to 1), channels
    // last and contiguous, pixels one stride apart in scan order, no indices: the executor may run the windows as
    // ranges of pixels on its threads and merge their maxima (runtime/window_ranges.hpp).
    bool window_ranges = false;
    // Channels last with several channel blocks: a few output rows of every block before the next rows (the
    // pixels' channels are consecutive, so a row's input is read whole while in cache). False where the blocks
    // lie apart (blocked layouts, views whose channels are apart): each block's plane is its own stream, walked
    // whole, its rows in runs of one call each.
    bool channel_blocks_innermost = false;
    // Planar 2-D rows whose planes stack: one run of rows covers every output row, its windows start at the
    // plane's first row and step through the whole plane (out_h x position_step = in_h, as VGG's k2 s2 on even
    // planes), and the indices, if any, number the planes one after another (axis 0 or 1, row-major): the next
    // plane's first output row is then the last one's next, one row step on, so a call takes the rows of
    // consecutive planes of an image together (VGG pool5's 512 planes of 7 rows: one call, not 512).
    bool stacked_planes = false;
    // The kernel's work for one image beside the bytes it moves: vector max operations, each window's taps (each
    // row maximum that a ring or separable rows share counted once) and a NaN scan's pass, a planar row's weighted
    // as the channels-last ones they take as long as. An estimate from the plan's shape that the executor turns
    // into expected time to choose how many threads to wake.
    double vector_ops_per_image = 0;

    // The choice the plan was made under (rules: every field at its default), and each choose_* step's decision
    // or the reason it declined, one line each (POOLJIT_VERBOSE=2).
    PlanChoice choice;
    std::vector<std::string> choices;

    friend bool operator==(const KernelPlan&, const KernelPlan&) = default;
};

// The ISA form the rules give a problem where the CPU runs both AVX-512 and AVX2, with the measured reason
// (Zen 4, splits_512_bit_ops, one thread, rules against tuned over the suite's 156 cells):
// - on cores that split 512-bit operations, memory-bound planar rows and bf16 planar rows take the AVX2 form: it
//   ran faster in 50 of the 63 ncx cells, up to 1.9x (VGG pool3 f32 54.9 against 103 us: its stride-2 taps
//   come in pairs, the AVX-512 form's masked items scan for NaN first); compare-bound planar rows of other types
//   keep AVX-512 (u8 Inception 2.2x, f32 dilated 3x3 1.5x faster with it), and so do small planes of 36
//   outputs or more held in registers (adaptive 13x13 to 7x7 f32: 2.0x; to 2x2, whose rows take taps as lanes,
//   AVX2 ran 2.0x faster), bf16 ones only where the AVX2 form's rows are runs of unequal windows (to 7x7 1.8x;
//   to 6x6 and VGG pool5, even windows, AVX2 1.1-1.3x faster);
// - channels-last blocks that fill at most half a zmm take the AVX2 form on every core (MobileNet u8 nxc, 32
//   channels: 10.7 against 19.5 us on Zen 4; 7.9 against 13.7-14.3 on Zen 5);
// - compare-bound channels-last rows of windows of 5 rows or more take the AVX2 form on cores that split (its
//   separable pixels: SPP k9 nxc f32 243 against 547 us on Zen 4); k3 windows keep the AVX-512 column ring
//   (Inception u8 nxc 1.4x faster with it).
struct IsaForm {
    Isa isa = Isa::avx512;
    const char* reason = "";
    // The AVX-512 form's plan (the rules' choice, PlanOptions::core the traits given) where the rules made it to
    // decide and chose that form: create() takes it rather than planning the same problem again.
    std::optional<KernelPlan> avx512_plan;
};
// blocks_folded: p is blocks_folded() of a blocked problem (folds_blocks).
IsaForm rules_isa_form(const Problem& p, const CpuTraits& traits, bool blocks_folded = false);

// The lanes the plan's vector trait computes in.
inline LaneFormat lane_format(const KernelPlan& plan) {
    return {plan.dtype, plan.compare, plan.lanes, plan.nan, plan.index_dtype, plan.index_lanes_64};
}

// The plan's fast row is one whole-plane item (a global pool, an adaptive pool to one bin).
inline bool has_whole_plane(const KernelPlan& plan) {
    return !plan.fast_segments.empty() && plan.fast_segments.front().whole_plane;
}

// Choices the planner makes only where a problem needs them; tests force them on problems small enough to run.
struct PlanOptions {
    bool wide_index_lanes = false;  // 64-bit index lanes beside half vectors of 32-bit compare lanes
    bool window_relative_indices = false;  // indices counted from each window's first tap (32-bit lanes)
    // Planar u8/s8 rows keep 32-bit lanes (make_plan's second plan where byte rows did not take the rows).
    bool no_byte_rows = false;
    // The answers asked for where more than one is valid (the rules decide the fields left at `rules`).
    PlanChoice choice = {};
    // What the cores do with the ISAs (cpu_traits(), measured once per process; the default where not
    // measured): rules that are right on one class of cores and wrong on another read it.
    CpuTraits core = {};
    // The problem is depth_folded() of a 3-D one (folds_depth): the plan says so, and the executor runs the
    // folded problem.
    bool depth_folded = false;
    // The problem is blocks_folded() of a blocked one (folds_blocks), the same.
    bool blocks_folded = false;
    // Folded into lanes with a partial last block: its real channels (bytes of a pixel) and its planes, the
    // folded problem's last channels, whose padded lanes the kernel's tail entry writes as 0 (Folds).
    std::int64_t folded_block_tail = 0, folded_block_planes = 0;

    friend bool operator==(const PlanOptions&, const PlanOptions&) = default;
};

// A choice (PlanOptions::choice) the planner cannot honour for a problem: the part and why. Not a demotion: the
// rules' plan still serves the problem.
class UnhonouredChoice : public Error {
public:
    using Error::Error;
};

// Windows one plane deep: a 3-D planar problem without indices whose windows are one plane deep and step one
// plane (kernel 1, stride 1 and no padding along d; adaptive: as many output planes as input planes), whose
// tensors keep each channel's D planes together, and whose rows are bound by compares or hold data of 1 byte
// (or of 2 in a channel volume under 64 KiB), is planned as depth_folded(problem): 2-D planes of C x D channels,
// served by the 2-D code (byte rows, separable rows). depth_folded keeps the batch size and needs folds_depth
// (it checks nothing).
bool folds_depth(const Problem& problem);
Problem depth_folded(const Problem& problem);

// Blocked u8/s8 rows at stride 1: a max pool without indices over nCx8c / nCx16c tensors of whole blocks, pixels one
// block apart (the width stride is the block), stride 1 along the width, is planned as blocks_folded(problem): each
// channel block a planar channel whose rows are W x B bytes, its width taps B bytes apart (dilation x B, pads x
// B), served by the planar byte code (bands, byte rows) where the channels-last code compares one pixel a vector.
// 2-D windows, and 3-D windows one plane deep (folds_depth then folds the result's planes); a window of the whole
// row only where `bands` (the AVX-512 form with byte permutes may serve it). At stride 2 along the width, at
// stride 1 where every width tap lies within 4 pixels of 16 bytes or 8 of 8 of its output, and for a window of
// the whole row (1-D, 2-D and 3-D windows one plane deep, each block's D planes D channels), blocks_folded(problem)
// is the lane-axis problem instead: each channel block a planar channel of one more spatial axis, the block's B
// lanes (kernel, stride and dilation 1, no pads), which blocked_byte_pixels serves (blocks_as_lanes); a partial
// last block is folded too, its padded lanes stored as 0 by the kernel's tail entry (Folds::block_tail).
// blocks_folded needs folds_blocks (it checks nothing).
bool folds_blocks(const Problem& problem, bool bands);
Problem blocks_folded(const Problem& problem);
// A folded problem whose last axis is a block's lanes (blocks_folded into lanes, above); whether
// blocked_byte_pixels' code has room for it (its runs of rows, its displacements, its code's size); its plan.
bool blocks_as_lanes(const Problem& folded);
bool blocked_pixels_fit(const Problem& folded);
BlockedPixels blocked_pixels_of(const Problem& folded, int vector_bytes);
// The folds create() applies to a problem (blocks first, then depth on the result), and the problem they give.
struct Folds {
    bool blocks = false, depth = false;
    // Blocks folded into lanes whose last block is partial: its channels, and its planes in the folded problem.
    std::int64_t block_tail = 0, block_planes = 0;
};
Folds folds_of(const Problem& problem, bool bands);
Problem folded_problem(const Problem& problem, bool blocks, bool depth);
// The options that say so to make_plan.
void set_folds(PlanOptions& options, const Folds& folds);

// isa must be avx2 or avx512. Throws pooljit::Error (the dispatch reason) for a plan it will not make, and
// UnhonouredChoice for a part of options.choice it cannot take.
KernelPlan make_plan(const Problem& problem, Isa isa, const PlanOptions& options = {});

// The real taps of output o along outer axis `axis` of the problem (what the plan's tables hold).
OuterTaps outer_taps_of(const Problem& problem, std::size_t axis, std::int64_t o);

// One line per fact, for POOLJIT_VERBOSE=2 and for tests.
std::string to_string(const KernelPlan& plan);

// The real taps [begin, end) of output o along one axis ({0, 0}: none). Exact for any valid descriptor.
struct WindowTaps {
    std::int64_t begin = 0, end = 0;
    friend bool operator==(const WindowTaps&, const WindowTaps&) = default;
};
WindowTaps window_taps(std::int64_t o, std::int64_t in, std::int64_t kernel, std::int64_t stride,
                       std::int64_t dilation, std::int64_t pad_begin);

// Outputs along one axis grouped into maximal runs of equal real-tap ranges. Empty when there would be more
// than max_runs runs (each run is code: such a row computes its windows at run time instead).
inline constexpr std::size_t default_max_width_runs = 256;
std::vector<WidthRun> width_runs(std::int64_t out, std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                 std::int64_t dilation, std::int64_t pad_begin,
                                 std::size_t max_runs = default_max_width_runs);

// Separable pixels' direct rows (SeparableRows::direct_rows, stride 1 along the width): the input positions some
// window of `runs` reads and no output reads as its first tap, in order; at most `most` + 1 of them (more: the
// rows keep their padded copy).
std::vector<std::int64_t> direct_row_unwatched_pixels(const std::vector<WidthRun>& runs, std::int64_t dilation,
                                                      std::int64_t pad_begin, std::size_t most);

}  // namespace pooljit::jit
