// The thread count that execute() uses and the oneTBB arena that enforces an explicit one.
#pragma once

#include <tbb/task_arena.h>

namespace pooljit::detail {

// The arena of exactly `threads` threads (set_num_threads / POOLJIT_NUM_THREADS); created once per count.
tbb::task_arena& arena_for(int threads);

}  // namespace pooljit::detail
