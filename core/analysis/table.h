#pragma once
// A table a view shows, as values: each column has a unit, each cell a raw number or a text.
// Views format the cells for reading (bytes as "474.8 MB", times as "474.82 µs"); CSV exports
// write the raw numbers with the unit in the header ("size (bytes)"), so a spreadsheet gets
// numbers, not strings.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sawtooth {

enum class Unit : uint8_t {
  Text,
  Count,
  Bytes,
  Nanoseconds,   // a time since the trace began, or a duration
  Milliseconds,
  Ratio,         // a fraction: 0.25 reads "+25 %"
  Share,         // a part of a whole: 0.25 reads "25.0 %"
  Speedup,       // reference time / this time: 1.7 reads "1.7× faster"
  FlopPerSecond,
  Number,        // a plain number without a unit
};
// The unit's name in a CSV header ("bytes", "ns", "ms", "ratio", "FLOP/s"); empty for text, counts and numbers.
std::string_view unitName(Unit unit);

struct Cell {
  std::variant<std::monostate, std::string, double> value;

  Cell() = default;
  Cell(std::string text) : value(std::move(text)) {}  // NOLINT: a text cell
  Cell(const char* text) : value(std::string(text)) {}  // NOLINT
  Cell(double number) : value(number) {}              // NOLINT: a number cell
  bool empty() const { return std::holds_alternative<std::monostate>(value); }
  const std::string* text() const { return std::get_if<std::string>(&value); }
  const double* number() const { return std::get_if<double>(&value); }
};

struct TableColumn {
  TableColumn(std::string column_name, Unit column_unit = Unit::Text, std::string label = {})
      : name(std::move(column_name)), unit(column_unit), unit_label(std::move(label)) {}
  std::string name;
  Unit unit = Unit::Text;
  std::string unit_label;  // a Number's own unit ("steps", "FLOP"), shown and written in the header
  bool is_change = false;  // a growth (more is worse) or a shrinkage: views colour its sign
};

struct Table {
  std::vector<TableColumn> columns;
  std::vector<std::vector<Cell>> rows;  // each as wide as columns

  size_t rowCount() const { return rows.size(); }
  size_t columnCount() const { return columns.size(); }
  const Cell& at(size_t row, size_t column) const { return rows[row][column]; }
};

// "size (bytes)", or the bare name for a unit without a name.
std::string csvHeader(const TableColumn& column);
// A cell as CSV writes it: numbers in full (integers without a fraction), texts as they are.
std::string csvValue(const Cell& cell, Unit unit);
// A cell as a person reads it: "474.8 MB", "474.82 µs", "+25 %", "1.7× faster". (Addresses are
// text cells: a double cannot hold every 64-bit address.)
std::string displayText(const Cell& cell, Unit unit);

}  // namespace sawtooth
