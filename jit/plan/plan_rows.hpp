// The geometry the planner's choices are made of (plan_rows.cpp). Internal to jit/.
#pragma once

#include "jit/plan/plan.hpp"

#include <pooljit/types.hpp>

#include <cstdint>
#include <vector>

namespace pooljit::jit {

__extension__ typedef __int128 i128;

CompareType compare_type_of(DType dtype);
bool is_64bit(CompareType c);

struct WidthAxis {
    std::int64_t out, in, kernel, stride, dilation, pad;
};

// Adaptive windows along one axis: [o*in/out, ceil((o+1)*in/out)).
WindowTaps adaptive_window(std::int64_t o, std::int64_t in, std::int64_t out);

// Runs of outputs whose windows have one tap count and whose first taps advance by one step; each becomes a
// segment of its own.
struct PositionRun {
    std::int64_t out_begin, out_end, taps, first_position, step;
};

std::vector<PositionRun> max_pool_runs(const WidthAxis& a);
// Empty when the row has more than max_runs runs, or is too long to scan (its windows are computed instead).
std::vector<PositionRun> adaptive_runs(const WidthAxis& a, std::size_t max_runs);
// nxc: one item per output. ncx: items of `group` outputs, the last one partial.
std::vector<Segment> segments_of(const std::vector<PositionRun>& runs, bool lanes_are_outputs, std::int64_t group);
ComputedWindows computed_windows_of(const WidthAxis& a, bool adaptive);
// Sets Segment::whole_register_loads on the planar segments (items of lanes 1 or 2 positions apart, or taps as
// lanes) whose loads at a whole register's width (register_lanes elements, vectors of `lanes` lanes) stay inside
// the input row; a loop of items whose last ones would pass the row's end is split there.
void mark_whole_register_loads(std::vector<Segment>& segments, const WidthAxis& a, std::int64_t lanes,
                               std::int64_t register_lanes);
// Sets Segment::element_before_later_loads, element_before_first_load and element_after_first_load on the
// segments of items of lanes 2 positions apart with exact loads (vectors of `lanes` lanes).
void mark_room_around_first_loads(std::vector<Segment>& segments, const WidthAxis& a, std::int64_t lanes);
// Planar fast rows whose border outputs share items with interior ones through lane masks (empty: not possible).
std::vector<Segment> masked_fast_segments(const WidthAxis& a, const std::vector<WidthRun>& runs, std::int64_t group);
// Planar fast rows of few outputs for their windows: one output per item, its window's taps as lanes (empty: does
// not pay, or a window is wider than a vector).
std::vector<Segment> window_lane_segments(const std::vector<PositionRun>& runs, const std::vector<Segment>& segments,
                                          std::int64_t out_width, std::int64_t lanes);
// Planar rows whose one window is the whole plane, read as one span (empty: not such a row, or too large).
std::vector<Segment> whole_plane_segments(const Problem& p, const std::int64_t (&multipliers)[3], std::int64_t lanes);
// Small planes in at most max_registers vectors, outputs gathered by permutes (no gathers: does not fit or pay).
PlanePlan plane_plan(const Problem& p, const std::int64_t (&multipliers)[3], std::int64_t lanes, std::int64_t max_registers);
// Sets the plane's src_rows, dst_rows and indices_rows from the problem's strides; false where a tensor's rows are
// not contiguous or its plane reaches too far for the code's 32-bit displacements.
bool set_plane_rows(const Problem& p, PlanePlan& plane);

// Runs of output rows along h with equal real taps whose first taps step evenly (KernelPlan::row_runs_h).
std::vector<RowRun> row_runs_of(const std::vector<OuterTaps>& taps_h);
// Planar 2-D rows whose planes stack (KernelPlan::stacked_planes): the input rows between one output row and the
// next, carried across planes (the whole plane's height when a plane has one output row); 0 when the one run of
// rows does not step through whole planes from the first row, or the indices do not number the planes in turn.
std::int64_t stacked_plane_step(const Problem& p, const KernelPlan& plan);

// Index multipliers per spatial axis: the index of an element is channel_term + sum(i_a * m_a).
void index_multipliers(const Problem& p, std::int64_t (&m)[3]);
// How far a window's taps reach in index units from its first tap.
i128 window_index_extent(const Problem& p, const std::int64_t (&m)[3]);
// How many windows read an input element, on average over the interior.
double reads_per_element(const Problem& p);
// Whether a window along spatial axis `a` spans at least `rows` input positions ((kernel - 1) * dilation + 1,
// computed without overflow: kernels and dilations are each only bounded by 63 bits).
bool window_spans_at_least(const Problem& p, std::size_t a, std::int64_t rows);

}  // namespace pooljit::jit
