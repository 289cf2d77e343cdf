// The planner's view of memory: which facts of a dense tensor the strides of a problem's src, dst and indices
// keep (MemoryFacts), and so which code serves a view. Dense tensors keep every fact and get the code they always
// had; a view that breaks one gets the code that does not need it, never the reference.
#include "jit/plan/plan.hpp"

#include <algorithm>
#include <vector>

namespace pooljit::jit {
namespace {

struct Tensor {
    const Problem::Strides* strides;
    const Problem::Spatial* dims;
};

}  // namespace

MemoryFacts memory_facts(const Problem& p) {
    std::vector<Tensor> tensors{{&p.src_strides, &p.in}, {&p.dst_strides, &p.out}};
    if (p.has_indices) tensors.push_back({&p.indices_strides, &p.out});
    const auto sr = static_cast<std::size_t>(p.spatial_rank);
    const std::size_t w = sr - 1;
    const auto all = [&](auto&& fact) {
        for (const Tensor& t : tensors)
            if (!fact(*t.strides, *t.dims)) return false;
        return true;
    };
    MemoryFacts m;
    // An axis of one position has no step to keep: any stride serves it.
    m.rows_contiguous = p.block == 1 && all([&](const Problem::Strides& s, const Problem::Spatial& d) {
                            return d[w] == 1 || s.spatial[w] == 1;
                        });
    m.planes_contiguous = m.rows_contiguous && all([&](const Problem::Strides& s, const Problem::Spatial& d) {
                              std::int64_t span = d[w];  // elements of the plane inside axis a
                              for (std::size_t a = w; a-- > 0;) {
                                  if (d[a] != 1 && s.spatial[a] != span) return false;
                                  span *= d[a];
                              }
                              return true;
                          });
    // The walk steps along the outermost axis: the next channel's plane is one more step of it (a plane of one
    // row included, whose row stride is then the step between planes).
    m.planes_stack = m.rows_contiguous && all([&](const Problem::Strides& s, const Problem::Spatial& d) {
                         return p.channels <= 1 || s.c == d[0] * s.spatial[0];
                     });
    if (p.block > 1) m.channel_run = p.block;
    else if (p.channels <= 1 || all([](const Problem::Strides& s, const Problem::Spatial&) { return s.c == 1; }))
        m.channel_run = std::max<std::int64_t>(p.channels, 1);
    else m.channel_run = 1;
    return m;
}

bool planar_lanes(const Problem& p, const MemoryFacts& m) {
    if (p.layout == Layout::ncx) return m.rows_contiguous;
    if (m.channel_run > 1 || p.channels <= 1) return false;
    return m.rows_contiguous;
}

}  // namespace pooljit::jit
