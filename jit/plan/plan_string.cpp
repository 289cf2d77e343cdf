// A plan as one line of its facts (POOLJIT_VERBOSE=2 and the tests): the printing apart from the planner.
#include "jit/plan/plan.hpp"

#include <pooljit/pooljit.hpp>

#include <sstream>
#include <string>

namespace pooljit::jit {

std::string to_string(const KernelPlan& plan) {
    std::ostringstream s;
    s << "plan isa=" << to_string(plan.isa)
      << " strategy="
      << (plan.strategy == Strategy::nxc_channels ? "nxc_channels"
          : plan.strategy == Strategy::ncx_width  ? "ncx_width"
                                                  : "ncx_planes")
      << " dtype=" << to_string(plan.dtype) << " compare="
      << (plan.compare == CompareType::f32   ? "f32"
          : plan.compare == CompareType::f64 ? "f64"
          : plan.compare == CompareType::s32 ? "s32"
          : plan.compare == CompareType::u32 ? "u32"
          : plan.compare == CompareType::u8  ? "u8"
          : plan.compare == CompareType::s8  ? "s8"
                                             : "s64")
      << " nan=" << (plan.nan == NanPolicy::ignore ? "ignore" : "propagate") << " vector_bytes=" << plan.vector_bytes
      << " lanes=" << plan.lanes << " vectors_per_block=" << plan.vectors_per_block
      << " channel_block=" << plan.channel_block << " channel_tail=" << plan.channel_tail
      << " channel_sweep=" << plan.channel_sweep << (plan.sweep_splits ? " (splits)" : "") << (plan.window_ranges ? " window_ranges" : "")
      << " out_width=" << plan.out_width << " unroll_width_taps=" << plan.unroll_width_taps
      << " unrolled_taps=" << plan.unrolled_taps_d << "x" << plan.unrolled_taps_h
      << " scan_rows_for_nan=" << plan.scan_rows_for_nan << (plan.scan_half_floats_as_stored ? " (as stored)" : "") << " watch_rows_for_nan=" << plan.watch_rows_for_nan
      << " tap_pass_taps=" << plan.tap_pass_taps << " ring_rows=" << plan.ring_rows << "/" << plan.ring_row_interval << " ring_call_rows=" << plan.ring_call_rows
      << " prefetch=" << plan.prefetch_bytes << "@" << plan.prefetch_distance << " width_ranges=" << plan.width_ranges
      << " width_runs=";
    for (const WidthRun& r : plan.width_runs)
        s << "[" << r.out_begin << "," << r.out_end << "):taps[" << r.tap_begin << "," << r.tap_end << ")";
    if (plan.computed_windows)
        s << " computed_windows=" << plan.walk.empty_before << "+" << plan.walk.computed << "+" << plan.walk.empty_after
          << (plan.walk.adaptive ? " (adaptive)" : "");
    else s << " segments=" << plan.segments.size();
    if (!plan.fast_segments.empty())
        s << " fast_segments=" << plan.fast_segments.size()
          << (plan.fast_segments.front().taps_as_lanes || plan.fast_segments.back().taps_as_lanes
                  ? (plan.taps_as_lanes_ranked ? " (taps as lanes, ranked)" : " (taps as lanes)")
                  : "")
          << (plan.fast_segments.front().whole_plane ? " (whole plane)" : "")
          << (plan.loop_whole_plane ? " looped, nan_sums=" + std::to_string(plan.whole_plane_sums) : "")
          << (plan.whole_plane_stores_maximum ? " stores_maximum" : "");
    if (plan.byte_planes.enabled())
        s << " byte_planes=" << plan.byte_planes.vector_bytes << "x" << plan.byte_planes.elements
          << " chains=" << plan.byte_planes.chains << " loop_passes=" << plan.byte_planes.loop_passes
          << (plan.byte_planes.shared_routine ? " shared_routine" : "");
    if (plan.blocks_folded) s << " blocks_folded";
    if (plan.depth_folded) s << " depth_folded";
    if (plan.vertical_rows.enabled())
        s << " vertical_rows=" << plan.vertical_rows.row_bytes << "B/" << plan.vertical_rows.taps << "taps";
    if (plan.blocked_pixels.enabled()) {
        const BlockedPixels& bp = plan.blocked_pixels;
        s << " blocked_pixels=" << bp.pixels() << "x" << bp.block << "B chunks=" << bp.chunks() << " loop=["
          << bp.interior_begin() << "," << bp.interior_end() << ") pairs=";
        for (const BlockedPixelPair& pair : bp.pairs)
            if (!bp.whole_row) s << (&pair == &bp.pairs.front() ? "" : ",") << pair.offset << (pair.odd ? "+odd" : "");
        s << " runs=" << bp.runs.size();
        if (bp.shifted)
            s << " shifted back=" << bp.chunks_back() << " ahead=" << bp.chunks_ahead() << " looped=" << bp.shifted_loop_chunks();
        if (bp.whole_row) s << " whole_row" << (bp.whole_rows_one_span() ? " one_span" : "");
    }
    if (plan.flat_planes.enabled())
        s << " flat_planes=" << plan.flat_planes.vector_bytes << "x"
          << (plan.flat_planes.pitched() ? std::to_string(plan.flat_planes.row_vectors()) + "/row"
                                         : std::to_string(plan.flat_planes.vectors()))
          << (plan.flat_planes.converts_plane ? " converted" : "")
          << (plan.flat_planes.pitched() ? " pitch=" + std::to_string(plan.flat_planes.pitch) + "/" +
                                               std::to_string(plan.flat_planes.out_pitch)
                                         : "");
    else if (plan.byte_bands.enabled()) {
        s << " byte_bands=" << plan.byte_bands.rows << "rows chunks=";
        for (const ByteBandChunk& c : plan.byte_bands.chunks)
            s << (&c == &plan.byte_bands.chunks.front() ? "" : ",") << c.outputs << "/" << c.registers << "reg";
        s << " runs=";
        for (const ByteBandRun& r : plan.byte_bands.runs)
            s << (&r == &plan.byte_bands.runs.front() ? "" : ",") << r.begin << "+" << r.count << "x" << r.rows
              << (r.looped ? "L" : "");
        s << " band_prefetch=" << plan.byte_bands.prefetch_distance;
    } else if (plan.strategy == Strategy::ncx_planes)
        s << " plane_elements=" << plan.plane.elements << " plane_outputs=" << plan.plane.outputs
          << " plane_registers=" << plan.plane.registers << " plane_gathers=" << plan.plane.gathers.size();
    if (plan.has_indices)
        s << " indices=" << to_string(plan.index_dtype) << " index_lanes=" << (plan.index_lanes_64 ? 64 : 32)
          << " index_mult=" << plan.index_mult[0] << "," << plan.index_mult[1] << "," << plan.index_mult[2]
          << " channel_index_stride=" << plan.channel_index_stride
          << (plan.index_relative_to_window ? " index_relative_to_window" : "");
    if (plan.separable.enabled())
        s << " separable=" << plan.separable.group_rows << "x" << plan.separable.window_rows << ":"
          << plan.separable.pad_lanes << "+" << plan.separable.phases << "x" << plan.separable.phase_lanes << ","
          << plan.separable.maxima_vectors << "/" << plan.separable.row_step << " acc=" << plan.separable.accumulators
          << (plan.separable.paired_width_windows ? " paired" : "")
          << (plan.separable.paired_output_rows ? " paired_rows" : "")
          << (plan.separable.direct_rows ? " direct_rows" : "") << (plan.separable.partial_tail ? " partial_tail" : "")
          << (plan.separable.partial_reads_back ? " partial_reads_back" : "")
          << (plan.separable.widened_pairs ? " widened_pairs" : "")
          << (plan.separable.byte_pairs ? " byte_pairs" : "")
          << (plan.separable.shifted_pair_loads ? " shifted_pair_loads" : "");
    if (plan.separable.row_read_reach > 0) s << " row_read_reach=" << plan.separable.row_read_reach;
    if (plan.separable.rows_store_whole) s << " rows_store_whole";
    if (plan.watch_rows_for_nan)
        s << " watch_chains=" << plan.watch_chains << " watch_shared=" << plan.watch_shared_rows_h << "x"
          << plan.watch_shared_taps_w;
    if (plan.channel_sweep > 1)
        s << " sweep_steps=" << plan.sweep_src_step << "/" << plan.sweep_dst_step << "/" << plan.sweep_indices_step;
    if (plan.row_chains > 1) s << " row_chains=" << plan.row_chains;
    if (plan.widened_pairs) s << " widened_pairs";
    if (plan.even_element_loads) s << " even_element_loads";
    if (plan.even_word_loads) s << " even_word_loads";
    if (plan.paired_tap_loads) s << " paired_tap_loads";
    if (plan.tail_back_reads) s << " tail_back_reads";
    if (plan.prefetch_in_items) s << " prefetch_in_items";
    if (plan.sweep_prefetch_distance > 0)
        s << " sweep_prefetch=" << plan.sweep_prefetch_pixels << "x" << plan.sweep_prefetch_pixel_bytes << "@"
          << plan.sweep_prefetch_distance;
    if (plan.stacked_planes) s << " stacked_planes";
    s << " row_runs_h=" << plan.row_runs_h.size() << " rows_per_chunk=" << plan.rows_per_chunk;
    s << " vector_ops_per_image=" << plan.vector_ops_per_image;  // a double: windows may be near 2^122 taps
    const MemoryFacts& m = plan.memory;
    s << " memory=" << (m.rows_contiguous ? "rows" : "-") << (m.planes_contiguous ? ",planes" : "")
      << (m.planes_stack ? ",stack" : "") << " channel_run=" << m.channel_run;
    if (!plan.choice.is_rules()) s << " chosen=[" << to_string(plan.choice) << "]";
    for (const std::string& choice : plan.choices) s << "\nchoice " << choice;
    return s.str();
}

}  // namespace pooljit::jit
