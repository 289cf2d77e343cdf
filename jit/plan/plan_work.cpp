// The executor's estimate of a kernel's work (KernelPlan::vector_ops_per_image), counted from the plan's shape in
// channels-last vector max operations.
#include "jit/plan/planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace pooljit::jit {

// Vector max operations per output vector: the taps of a window, where no row maximum is shared; with a ring or
// separable rows, each output's share of the row maxima (its width taps for each input row it steps over) and
// its merges down the window's rows, for every tap along d. Adaptive windows count their mean extent.
static double max_ops_per_output_vector(const Problem& p, const KernelPlan& plan, std::size_t width_axis) {
    const bool adaptive = p.op == OpKind::adaptive_max_pool;
    const auto extent = [&](std::size_t a) -> double {
        if (adaptive && p.out[a] > 4096) return static_cast<double>(p.in[a]) / static_cast<double>(p.out[a]) + 1;
        if (adaptive) {
            double taps = 0;
            for (std::int64_t o = 0; o < p.out[a]; ++o) taps += static_cast<double>(outer_taps_of(p, a, o).count);
            return taps / static_cast<double>(p.out[a]);
        }
        // The real taps, padding skipped: at most the kernel's, and at most the input's positions a dilation
        // apart. In doubles: kernels, dilations and pads are each only bounded by 63 bits.
        const double d = static_cast<double>(std::max<std::int64_t>(p.dilation[a], 1));
        return std::min(static_cast<double>(p.kernel[a]), std::ceil(static_cast<double>(p.in[a]) / d));
    };
    double window = 1;
    for (std::size_t a = 0; a <= width_axis; ++a) window *= extent(a);
    const bool rows_shared = plan.ring_rows > 0 || (plan.separable.enabled() && !plan.separable.byte_pairs);
    if (!rows_shared || width_axis == 0) return window;
    const std::size_t h = width_axis - 1;
    const double taps_w = extent(width_axis), taps_h = extent(h);
    const double rows_stepped = std::min(taps_h, static_cast<double>(adaptive ? 1 : p.stride[h]));
    const double outer = window / (taps_w * taps_h);
    return outer * (taps_w * rows_stepped + taps_h);
}

void Planner::set_expected_work() {
    const double in_elements = static_cast<double>(p_.in[0]) * static_cast<double>(p_.in[1]) * static_cast<double>(p_.in[2]);
    const double outputs_per_row = static_cast<double>(p_.out[wa_]);
    double rows = 1;
    for (std::size_t a = 0; a < wa_; ++a) rows *= static_cast<double>(p_.out[a]);
    const double lanes = std::max(1, plan_.lanes);
    const double channels = static_cast<double>(p_.channels);
    // Output vectors of one image: channels last, each pixel's channels in whole vectors; planar, each row's
    // outputs in whole vectors.
    const double vectors = lanes_are_outputs_ ? channels * rows * std::ceil(outputs_per_row / lanes)
                                              : rows * outputs_per_row * std::ceil(channels / lanes);
    if (plan_.blocked_pixels.enabled()) {
        // Each chunk of G outputs: its window rows' two loads and max a pair, then a split and a max a tap.
        const BlockedPixels& bp = plan_.blocked_pixels;
        double row_loads = 0;
        for (const BlockedPixelRun& run : bp.runs)
            row_loads += static_cast<double>(run.count) * static_cast<double>(run.tap_end - run.tap_begin);
        const double pairs = static_cast<double>(bp.pairs.size());
        plan_.vector_ops_per_image =
            channels * static_cast<double>(bp.chunks()) * (4 * pairs * row_loads + 2 * pairs * static_cast<double>(bp.out_h));
        return;
    }
    if (plan_.byte_planes.enabled()) {
        // Each plane's vectors (the last one may overlap), then its share of the reduction across planes: an
        // interleave, another and a max for every plane but one of each group.
        const double width = plan_.byte_planes.vector_bytes;
        plan_.vector_ops_per_image = channels * (std::ceil(static_cast<double>(plan_.byte_planes.elements) / width) + 3);
        return;
    }
    if (plan_.flat_planes.enabled()) {
        // Each vector of a plane: its width taps (a load, a masked min and a max each) and its rows.
        const FlatPlanes& flat = plan_.flat_planes;
        plan_.vector_ops_per_image = channels * static_cast<double>(flat.vectors()) * (2.0 * flat.kernel_w + flat.kernel_h);
        return;
    }
    if (plan_.byte_bands.enabled()) {
        // Each band: its rows' loads and maxima, a permute and a max a width tap, a store.
        const ByteBands& bands = plan_.byte_bands;
        double band_ops = 0;
        for (const ByteBandChunk& chunk : bands.chunks)
            band_ops += static_cast<double>(bands.kernel_h * chunk.registers + 2 * bands.kernel_w);
        double band_rows = 0;
        for (const ByteBandRun& run : bands.runs) band_rows += static_cast<double>(run.count);
        plan_.vector_ops_per_image = channels * band_rows * band_ops;
        return;
    }
    if (has_whole_plane(plan_)) {
        // One straight loop over each plane, several maxima (and a float plane's NaN sums) in flight: a vector a
        // cycle or better, where planar rows took 1.7 (adaptive 1x256x13x13 to 1x1 f32 ncx, 5408 vectors: 2.5 us).
        plan_.vector_ops_per_image = channels * in_elements / lanes;
        return;
    }
    // Windows whose taps are the lanes (small adaptive windows): each output one reduction across the lanes.
    const bool taps_as_lanes = std::any_of(plan_.fast_segments.begin(), plan_.fast_segments.end(),
                                           [](const Segment& s) { return s.taps_as_lanes; });
    double ops = taps_as_lanes ? channels * rows * outputs_per_row *
                                     (std::max(1.0, max_ops_per_output_vector(p_, plan_, wa_) / lanes) + std::log2(lanes))
                               : vectors * max_ops_per_output_vector(p_, plan_, wa_);
    // Planar rows also pay their borders, buffers and widening: fitted to the one-thread times of the suite's
    // cells under 40 us on Zen 4, a planar operation takes 1.7 channels-last ones.
    if (lanes_are_outputs_) ops *= 1.7;
    // A NaN scan reads every input element once more, a vector of lanes at a time.
    if (plan_.scan_rows_for_nan) ops += channels * in_elements / lanes;
    plan_.vector_ops_per_image = ops;
}

}  // namespace pooljit::jit
