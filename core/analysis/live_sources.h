#pragma once
// Several files of one recording drawn as one live timeline: a distributed run's ranks, a
// program's processes, each written to a file of its own while the recording runs. Every file's
// devices become devices of their own in the timeline (two ranks on one GPU stay two lines),
// labelled after their file ("rank 1"). The first file keeps its device ids (-1 and up, as
// the file has them); the others' get ids below -1, in the order they appear, so none collide.
// Those ids stay within int16_t (from -32768 up): the timeline chart and the trace's views key a
// device's lines by an int16_t, and an id that wrapped there would lose the device's name (its
// lines were called "0 allocated" instead of "rank 0 · cpu allocated").

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/model/live_rows.h"

namespace sawtooth {

class LiveSourceMap {
 public:
  // Rewrites a batch read from file number `source` in place: device ids and labels. Devices
  // that its rows use before the file lists them are listed (baseline zero, as the timeline
  // starts them anyway) so that they carry the label too.
  void remap(size_t source, const std::string& label, std::vector<LiveDevice>& devices, std::vector<LiveRow>& rows);
  // The timeline's id of a file's device. Past the 32,766 ids below -1, the files' further
  // devices share the last one (a line drawn for several; never an id of the first file's).
  DeviceId idOf(size_t source, DeviceId device);

  static constexpr DeviceId kFirstId = INT16_MIN;
  static constexpr DeviceId kLastId = -2;

 private:
  std::map<std::pair<size_t, DeviceId>, DeviceId> ids_;
  DeviceId next_ = kFirstId;
};

}  // namespace sawtooth
