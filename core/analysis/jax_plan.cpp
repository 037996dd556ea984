#include "core/analysis/jax_plan.h"

#include <algorithm>
#include <initializer_list>

#include "core/analysis/category_series.h"
#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

// The highest value the sum of `categories`' live bytes reaches on a device.
int64_t peakOfSum(const Trace& trace, int16_t device, std::initializer_list<Category> categories) {
  const CategoryTimeline timeline = buildCategoryTimeline(trace, device);
  auto sumAt = [&](auto&& live) {
    int64_t sum = 0;
    for (Category c : categories) sum = wrappingAdd(sum, live(static_cast<size_t>(c)));
    return sum;
  };
  int64_t peak = sumAt([&](size_t c) { return timeline.start[c]; });
  const size_t n = timeline.empty() ? 0 : timeline.live[0].size();
  for (size_t i = 0; i < n; ++i) peak = std::max(peak, sumAt([&](size_t c) { return timeline.live[c][i]; }));
  return peak;
}

}  // namespace

const Run* jaxPlanRun(const Trace& jax) {
  for (const auto& r : jax.runs)
    if (r.measurement("jax_plan_total_bytes")) return &r;
  return nullptr;
}

std::vector<JaxPlanRow> jaxPlanBesideCount(const Trace& jax, const Trace* anatomy, int16_t device) {
  std::vector<JaxPlanRow> rows;
  const Run* plan = jaxPlanRun(jax);
  if (!plan) return rows;
  auto figure = [&](const char* name) {
    const Measurement* m = plan->measurement(name);
    return m ? m->value : 0.0;
  };
  auto count = [&](std::initializer_list<Category> categories) -> std::optional<double> {
    if (!anatomy) return std::nullopt;
    return static_cast<double>(peakOfSum(*anatomy, device, categories));
  };
  using C = Category;
  rows.push_back({"arguments (parameters + inputs)", figure("jax_plan_argument_bytes"), count({C::Parameter, C::Input})});
  rows.push_back({"outputs (gradients)", figure("jax_plan_output_bytes"), count({C::Gradient})});
  rows.push_back({"temporaries (activations + temporaries)", figure("jax_plan_temp_bytes"), count({C::Activation, C::Temporary})});
  rows.push_back({"aliased (arguments reused as outputs)", figure("jax_plan_alias_bytes"), std::nullopt});
  rows.push_back({"total (without optimizer state)", figure("jax_plan_total_bytes"),
                  count({C::Parameter, C::Input, C::Gradient, C::Activation, C::Temporary})});
  return rows;
}

}  // namespace sawtooth
