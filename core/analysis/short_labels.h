#pragma once
// Labels short enough for a chart's axis or a table's column, the long form kept for tooltips.
//
// A call site's label short enough for a chart's axis. Call-site labels are "train.py:42 forward"
// for Python and, for C++ frames, whole signatures ("void at::native::(anonymous namespace)::
// add_kernel<float>(at::TensorIteratorBase&, c10::Scalar const&) const"), which a bar chart could
// only show as "…". The short form keeps what tells sites apart: the location's file and line and
// the function's qualified name without return type, template arguments or parameters, then, if
// still too long, its last name components (a leading "…" where something was cut).

#include <cstddef>
#include <string>
#include <string_view>

namespace sawtooth {

// The function's qualified name alone: "at::native::add_kernel" for the signature above.
std::string functionName(std::string_view signature);
// `label` in at most `max_chars` characters (UTF-8 code points), as described above.
std::string compactSiteLabel(std::string_view label, size_t max_chars);

// A recorded program's run is named after its command line, paths and all
// ("/home/me/venv/bin/python /home/me/project/train.py --epochs 1"): each path is cut to its file
// name ("python train.py --epochs 1"), then the whole to `max_chars` with "…" at the end.
std::string compactCommand(std::string_view command, size_t max_chars);

}  // namespace sawtooth
