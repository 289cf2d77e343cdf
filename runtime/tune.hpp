// Measured choice inside the runtime: the choice a create() without one takes (wisdom, or a tune when tuning is
// on), the thread count wisdom keys problems by, and the log lines of both.
#pragma once

#include <pooljit/pooljit.hpp>

#include <optional>
#include <string>

namespace pooljit::detail {

// The choice wisdom holds for this CPU, the problem and the threads execute will use; with tuning on and none
// held, a tune's winner (then added to the wisdom). nullopt: the rules. Loads POOLJIT_WISDOM at first use.
std::optional<PlanChoice> measured_choice(const AnyPoolDesc& desc, const Problem& resolved);

// The threads an execute uses: the setting, else oneTBB's in the caller's arena.
int effective_threads();

// At POOLJIT_VERBOSE=2: "pooljit wisdom <problem>: ..." lines.
void log_wisdom(const std::string& message);
// A wisdom choice the planner refused: the entry is marked (later lookups give the rules, and the saved line stays
// as read) and logged, always, once an entry.
void wisdom_refused(const Problem& resolved, const std::string& problem, const std::string& why);

}  // namespace pooljit::detail
