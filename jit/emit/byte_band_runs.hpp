// The plane walk both byte band emitters share (emit_byte_bands.cpp, emit_byte_shuffle_bands.cpp). Internal to
// jit/emit.
#pragma once

#include "jit/plan/plan.hpp"

#include <xbyak/xbyak.h>

#include <cstdint>

namespace pooljit::jit {

// The general-purpose registers of the walk: the plane's source and output, and a looped run's cursors and count.
struct BandWalkRegisters {
    Xbyak::Reg64 src, dst, src_cursor, dst_cursor, count;
};

// Emits one plane's bands in code order (ByteBands::runs). A straight-line band is
// band(src, src_at, plane_row, dst, dst_at, rows, false): src at the plane's first byte, src_at the plane offset of
// the band's first output row's window row 0, plane_row that row's input row. A looped run is a loop over its
// bands, band(src_cursor, 0, 0, dst_cursor, 0, rows, true) each, which first prefetches the lines of the input rows
// the band steps over, prefetch_distance bytes ahead (a hint: it never faults, so it may pass the plane's end).
template <class Band>
void emit_plane_bands(Xbyak::CodeGenerator& g, const ByteBands& bands, const BandWalkRegisters& r, Band&& band) {
    for (const ByteBandRun& run : bands.runs) {
        const std::int64_t row = run.begin * bands.stride_h - bands.pad_h;  // window row 0 of the first band
        const std::int64_t src_at = row * bands.pitch, dst_at = run.begin * bands.out_pitch;
        if (!run.looped) {
            for (std::int64_t b = 0; b < run.count; ++b)
                band(r.src, src_at + b * run.rows * bands.stride_h * bands.pitch, row + b * run.rows * bands.stride_h,
                     r.dst, dst_at + b * run.rows * bands.out_pitch, run.rows, false);
            continue;
        }
        Xbyak::Label band_loop;
        g.lea(r.src_cursor, g.ptr[r.src + static_cast<std::int32_t>(src_at)]);
        g.lea(r.dst_cursor, g.ptr[r.dst + static_cast<std::int32_t>(dst_at)]);
        g.mov(r.count, run.count);
        g.L(band_loop);
        const std::int64_t step = run.rows * bands.stride_h * bands.pitch;
        if (bands.prefetch_distance > 0)
            for (std::int64_t in_row = 0; in_row < run.rows * bands.stride_h; ++in_row)
                for (std::int64_t line = 0; line < bands.width; line += 64)
                    g.prefetcht0(g.ptr[r.src_cursor + static_cast<std::int32_t>(bands.prefetch_distance + in_row * bands.pitch + line)]);
        band(r.src_cursor, std::int64_t{0}, std::int64_t{0}, r.dst_cursor, std::int64_t{0}, run.rows, true);
        g.add(r.src_cursor, static_cast<std::int32_t>(step));
        g.add(r.dst_cursor, static_cast<std::int32_t>(run.rows * bands.out_pitch));
        g.dec(r.count);
        g.jnz(band_loop, Xbyak::CodeGenerator::T_NEAR);
    }
}

}  // namespace pooljit::jit
