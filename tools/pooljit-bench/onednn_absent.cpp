// pooljit-bench built without oneDNN (libdnnl-dev absent at configure time).
#include "onednn.hpp"

namespace pooljit_bench {

bool onednn_built() { return false; }
std::string onednn_description() { return "oneDNN: not built (install libdnnl-dev and reconfigure)"; }
void onednn_set_threads(int) {}
PeerResult onednn_time(const pooljit::Problem&, const void*, const TimingPlan&) { return {}; }

}  // namespace pooljit_bench
