#include "core/io/native_schema.h"

#include <array>

#include <fmt/format.h>

namespace sawtooth::native {
namespace {

using enum ColumnType;
constexpr bool kNotNull = true;
constexpr bool kKey = true;
constexpr int kModules = kFirstModuleVersion;
constexpr int kSummaries = kFirstSummaryVersion;

constexpr std::array kMeta{Column{"key", Text, false, kKey}, Column{"value", Text, kNotNull}};
constexpr std::array kDevices{Column{"device", Integer, false, kKey}, Column{"name", Text},
                              Column{"total_bytes", Integer}, Column{"baseline_allocated", Integer},
                              Column{"baseline_reserved", Integer}};
constexpr std::array kRuns{Column{"id", Integer, false, kKey}, Column{"name", Text, kNotNull},
                           Column{"workload", Text}};
constexpr std::array kRunConfig{Column{"run_id", Integer, kNotNull}, Column{"key", Text, kNotNull},
                                Column{"value", Text}};
constexpr std::array kMeasurements{Column{"run_id", Integer, kNotNull}, Column{"name", Text, kNotNull},
                                   Column{"value", Real}, Column{"unit", Text}};
constexpr std::array kPhases{Column{"id", Integer, false, kKey}, Column{"name", Text, kNotNull},
                             Column{"kind", Text, kNotNull},     Column{"device", Integer},
                             Column{"run_id", Integer},          Column{"begin_ns", Integer, kNotNull},
                             Column{"end_ns", Integer, kNotNull}};
constexpr std::array kFrames{Column{"id", Integer, false, kKey}, Column{"name", Text}, Column{"file", Text},
                             Column{"line", Integer}};
constexpr std::array kStacks{Column{"stack_id", Integer, kNotNull}, Column{"depth", Integer, kNotNull},
                             Column{"frame_id", Integer, kNotNull}};
constexpr std::array kEvents{Column{"seq", Integer, false, kKey}, Column{"t_ns", Integer, kNotNull},
                             Column{"device", Integer, kNotNull}, Column{"source", Integer, kNotNull},
                             Column{"action", Integer, kNotNull}, Column{"addr", Integer},
                             Column{"size", Integer},             Column{"stream", Integer},
                             Column{"category", Integer},         Column{"phase", Integer},
                             Column{"stack", Integer},            Column{"run", Integer},
                             // the module the bytes belong to (modules.id) and the pass that made them (pass_names.id)
                             Column{"module", Integer, false, false, kModules},
                             Column{"pass", Integer, false, false, kModules}};
constexpr std::array kCounters{Column{"device", Integer, kNotNull}, Column{"name", Text, kNotNull},
                               Column{"after_event", Integer, kNotNull}, Column{"value", Integer, kNotNull}};
constexpr std::array kKernelNames{Column{"id", Integer, false, kKey}, Column{"name", Text, kNotNull}};
constexpr std::array kKernels{Column{"device", Integer, kNotNull},  Column{"stream", Integer},
                              Column{"begin_ns", Integer, kNotNull}, Column{"end_ns", Integer, kNotNull},
                              Column{"name_id", Integer, kNotNull}, Column{"run", Integer}};
constexpr std::array kNames{Column{"id", Integer, false, kKey}, Column{"name", Text}};
// The allocator's segments when the trace ended (a PyTorch snapshot's `segments`); a block's
// segment is the segments row's id.
constexpr std::array kSegments{Column{"id", Integer, false, kKey},   Column{"device", Integer, kNotNull},
                               Column{"address", Integer, kNotNull}, Column{"total_size", Integer, kNotNull},
                               Column{"stream", Integer},            Column{"pool", Text, kNotNull},
                               Column{"expandable", Integer},        Column{"pool_id_a", Integer},
                               Column{"pool_id_b", Integer},         Column{"stack", Integer}};
constexpr std::array kSegmentBlocks{Column{"segment", Integer, kNotNull}, Column{"address", Integer, kNotNull},
                                    Column{"size", Integer, kNotNull},    Column{"requested_size", Integer},
                                    Column{"state", Text, kNotNull},      Column{"stack", Integer}};
// The recorded program's modules (core/model/module_tree.h): a parent before its children,
// names as named_modules() gives them from the root, a root named by its class.
constexpr std::array kModuleRows{Column{"id", Integer, false, kKey, kModules},
                                 Column{"name", Text, kNotNull, false, kModules},
                                 Column{"class", Text, false, false, kModules},
                                 Column{"parent", Integer, false, false, kModules},
                                 Column{"parameter_bytes", Integer, false, false, kModules}};
constexpr std::array kModuleCalls{Column{"module", Integer, kNotNull, false, kModules},
                                  Column{"pass", Integer, kNotNull, false, kModules},
                                  Column{"run", Integer, false, false, kModules},
                                  Column{"begin_ns", Integer, kNotNull, false, kModules},
                                  Column{"end_ns", Integer, kNotNull, false, kModules}};

// Format 3: the summaries a reader opens a file of any length from (core/analysis/summary_builder.h,
// docs/sawtooth-format.md). Each series of a device has its pyramid of nodes over the points of
// its axis; the axes' nodes say which events and times a node covers.
constexpr std::array kSummarySeries{
    Column{"device", Integer, kNotNull, false, kSummaries}, Column{"series", Integer, kNotNull, false, kSummaries},
    Column{"axis", Integer, kNotNull, false, kSummaries}, Column{"start_value", Integer, kNotNull, false, kSummaries},
    Column{"points", Integer, kNotNull, false, kSummaries}, Column{"last_value", Integer, kNotNull, false, kSummaries}};
constexpr std::array kSummaryAxes{
    Column{"device", Integer, kNotNull, false, kSummaries}, Column{"axis", Integer, kNotNull, false, kSummaries},
    Column{"points", Integer, kNotNull, false, kSummaries}, Column{"sealed_t", Integer, false, false, kSummaries},
    Column{"pending_from_seq", Integer, false, false, kSummaries}};
constexpr std::array kSummaryAxisNodes{
    Column{"device", Integer, kNotNull, false, kSummaries}, Column{"axis", Integer, kNotNull, false, kSummaries},
    Column{"level", Integer, kNotNull, false, kSummaries}, Column{"node", Integer, kNotNull, false, kSummaries},
    Column{"points", Integer, kNotNull, false, kSummaries}, Column{"first_seq", Integer, kNotNull, false, kSummaries},
    Column{"last_seq", Integer, kNotNull, false, kSummaries}, Column{"t_first", Integer, kNotNull, false, kSummaries},
    Column{"t_last", Integer, kNotNull, false, kSummaries}};
constexpr std::array kSummaryNodes{
    Column{"device", Integer, kNotNull, false, kSummaries}, Column{"series", Integer, kNotNull, false, kSummaries},
    Column{"level", Integer, kNotNull, false, kSummaries}, Column{"node", Integer, kNotNull, false, kSummaries},
    Column{"min_value", Integer, kNotNull, false, kSummaries},
    Column{"max_value", Integer, kNotNull, false, kSummaries},
    Column{"last_value", Integer, kNotNull, false, kSummaries},
    Column{"min_first", Integer, kNotNull, false, kSummaries}};
constexpr std::array kSummarySpans{
    Column{"device", Integer, kNotNull, false, kSummaries}, Column{"kind", Integer, kNotNull, false, kSummaries},
    Column{"id", Integer, kNotNull, false, kSummaries}, Column{"begin_ns", Integer, kNotNull, false, kSummaries},
    Column{"end_ns", Integer, kNotNull, false, kSummaries}, Column{"open", Integer, kNotNull, false, kSummaries},
    Column{"first_point", Integer, kNotNull, false, kSummaries},
    Column{"end_point", Integer, kNotNull, false, kSummaries},
    Column{"peak_allocated", Integer, kNotNull, false, kSummaries},
    Column{"peak_point", Integer, kNotNull, false, kSummaries}, Column{"peak_seq", Integer, false, false, kSummaries},
    Column{"peak_t", Integer, false, false, kSummaries},
    Column{"reserved_at_peak", Integer, kNotNull, false, kSummaries},
    Column{"max_reserved", Integer, kNotNull, false, kSummaries},
    Column{"categorised", Integer, kNotNull, false, kSummaries},
    Column{"at_peak_unknown", Integer, false, false, kSummaries},
    Column{"at_peak_parameter", Integer, false, false, kSummaries},
    Column{"at_peak_gradient", Integer, false, false, kSummaries},
    Column{"at_peak_optimizer_state", Integer, false, false, kSummaries},
    Column{"at_peak_input", Integer, false, false, kSummaries},
    Column{"at_peak_activation", Integer, false, false, kSummaries},
    Column{"at_peak_temporary", Integer, false, false, kSummaries},
    Column{"at_peak_autograd_detail", Integer, false, false, kSummaries}};
// The out-of-memory events, so that a reader finds the first without a pass over the events. Added
// after format 3 first shipped: a format 3 file without it is searched by a pass.
constexpr std::array kSummaryOoms{Column{"device", Integer, kNotNull, false, kSummaries},
                                  Column{"seq", Integer, kNotNull, false, kSummaries}};
// Each category's peak per device over the whole trace, for the plan against the count without a
// pass over the events (`exact` 0: a category was learnt too late to keep them; a reader counts).
// Added after format 3 first shipped, as summary_ooms.
constexpr std::array kSummaryCategoryPeaks{
    Column{"device", Integer, kNotNull, false, kSummaries},        Column{"exact", Integer, kNotNull, false, kSummaries},
    Column{"categorised", Integer, kNotNull, false, kSummaries},   Column{"peak_unknown", Integer, kNotNull, false, kSummaries},
    Column{"peak_parameter", Integer, kNotNull, false, kSummaries}, Column{"peak_gradient", Integer, kNotNull, false, kSummaries},
    Column{"peak_optimizer_state", Integer, kNotNull, false, kSummaries},
    Column{"peak_input", Integer, kNotNull, false, kSummaries},     Column{"peak_activation", Integer, kNotNull, false, kSummaries},
    Column{"peak_temporary", Integer, kNotNull, false, kSummaries},
    Column{"peak_autograd_detail", Integer, kNotNull, false, kSummaries}};
constexpr std::array kSummaryEventIndex{
    Column{"chunk", Integer, false, kKey, kSummaries}, Column{"first_seq", Integer, kNotNull, false, kSummaries},
    Column{"last_seq", Integer, kNotNull, false, kSummaries}, Column{"t_min", Integer, kNotNull, false, kSummaries},
    Column{"t_max", Integer, kNotNull, false, kSummaries}};
constexpr std::array kSummaryCheckpoints{
    Column{"device", Integer, kNotNull, false, kSummaries}, Column{"position", Integer, kNotNull, false, kSummaries},
    Column{"seq", Integer, false, false, kSummaries}};
constexpr std::array kSummaryCheckpointSegments{
    Column{"device", Integer, kNotNull, false, kSummaries}, Column{"position", Integer, kNotNull, false, kSummaries},
    Column{"address", Integer, kNotNull, false, kSummaries}, Column{"total_size", Integer, kNotNull, false, kSummaries},
    Column{"stream", Integer, kNotNull, false, kSummaries}, Column{"small_pool", Integer, kNotNull, false, kSummaries},
    Column{"expandable", Integer, kNotNull, false, kSummaries},
    Column{"pool_id_a", Integer, kNotNull, false, kSummaries},
    Column{"pool_id_b", Integer, kNotNull, false, kSummaries}, Column{"stack", Integer, false, false, kSummaries}};
constexpr std::array kSummaryCheckpointBlocks{
    Column{"device", Integer, kNotNull, false, kSummaries}, Column{"position", Integer, kNotNull, false, kSummaries},
    Column{"address", Integer, kNotNull, false, kSummaries}, Column{"segment", Integer, false, false, kSummaries},
    Column{"size", Integer, kNotNull, false, kSummaries},
    Column{"requested_size", Integer, kNotNull, false, kSummaries},
    Column{"state", Integer, kNotNull, false, kSummaries}, Column{"stack", Integer, false, false, kSummaries},
    Column{"alloc_event", Integer, false, false, kSummaries}, Column{"size_max", Integer, false, false, kSummaries}};

constexpr std::array kTables{
    Table{"meta", kMeta},
    Table{"devices", kDevices},
    Table{"runs", kRuns},
    Table{"run_config", kRunConfig},
    Table{"measurements", kMeasurements},
    Table{"phases", kPhases},
    Table{"frames", kFrames},
    Table{"stacks", kStacks, "PRIMARY KEY(stack_id, depth)", true},
    Table{"events", kEvents},
    Table{"counters", kCounters},
    Table{"kernel_names", kKernelNames},
    Table{"kernels", kKernels},
    Table{"action_names", kNames},
    Table{"source_names", kNames},
    Table{"category_names", kNames},
    Table{"segments", kSegments},
    Table{"segment_blocks", kSegmentBlocks},
    Table{"modules", kModuleRows},
    Table{"module_calls", kModuleCalls},
    Table{"pass_names", kNames},
    Table{"summary_series", kSummarySeries, "PRIMARY KEY(device, series)", true},
    Table{"summary_axes", kSummaryAxes, "PRIMARY KEY(device, axis)", true},
    Table{"summary_axis_nodes", kSummaryAxisNodes, "PRIMARY KEY(device, axis, level, node)", true},
    Table{"summary_nodes", kSummaryNodes, "PRIMARY KEY(device, series, level, node)", true},
    Table{"summary_spans", kSummarySpans, "PRIMARY KEY(device, kind, id)", true},
    Table{"summary_event_index", kSummaryEventIndex},
    Table{"summary_ooms", kSummaryOoms, "PRIMARY KEY(device, seq)", true},
    Table{"summary_category_peaks", kSummaryCategoryPeaks, "PRIMARY KEY(device)", true},
    Table{"summary_checkpoints", kSummaryCheckpoints, "PRIMARY KEY(device, position)", true},
    Table{"summary_checkpoint_segments", kSummaryCheckpointSegments, "PRIMARY KEY(device, position, address)", true},
    // A block outside the segments (segment NULL) may share its address with one inside (an allocation
    // the trace shows twice without a free): both are the state. A rowid table, where a key may hold NULL.
    Table{"summary_checkpoint_blocks", kSummaryCheckpointBlocks, "PRIMARY KEY(device, position, address, segment)"},
};

constexpr std::string_view kEventsNamedView = R"sql(
CREATE VIEW events_named AS
  SELECT e.seq, e.t_ns, e.device, s.name AS source, a.name AS action, e.addr, e.size, e.stream,
         c.name AS category, p.name AS phase, e.stack, r.name AS run, m.name AS module, ps.name AS pass
  FROM events e
  JOIN action_names a ON a.id = e.action
  JOIN source_names s ON s.id = e.source
  LEFT JOIN category_names c ON c.id = e.category
  LEFT JOIN phases p ON p.id = e.phase
  LEFT JOIN runs r ON r.id = e.run
  LEFT JOIN modules m ON m.id = e.module
  LEFT JOIN pass_names ps ON ps.id = e.pass;
)sql";

}  // namespace

std::span<const Table> tables() { return kTables; }

const Table* findTable(std::string_view name) {
  for (const Table& t : kTables)
    if (t.name == name) return &t;
  return nullptr;
}

std::string_view typeName(ColumnType type) {
  switch (type) {
    case Integer: return "INTEGER";
    case Real: return "REAL";
    case Text: return "TEXT";
  }
  return "ANY";
}

size_t columnsOfVersion(const Table& t, int version) {
  size_t n = 0;
  for (const Column& c : t.columns) n += c.since <= version ? 1 : 0;
  return n;
}

std::string createTableSql(const Table& t, std::string_view name) {
  std::string sql = fmt::format("CREATE TABLE {}(", name.empty() ? t.name : name);
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const Column& c = t.columns[i];
    sql += fmt::format("{}{} {}{}{}", i ? ", " : "", c.name, typeName(c.type), c.primary_key ? " PRIMARY KEY" : "",
                       c.not_null ? " NOT NULL" : "");
  }
  if (!t.table_constraint.empty()) sql += fmt::format(", {}", t.table_constraint);
  sql += t.without_rowid ? ") WITHOUT ROWID;\n" : ");\n";
  return sql;
}

std::string_view eventsNamedViewSql() { return kEventsNamedView; }

std::string schemaSql() {
  std::string sql;
  for (const Table& t : kTables) sql += createTableSql(t);
  sql += kEventsNamedView;
  return sql;
}

}  // namespace sawtooth::native
