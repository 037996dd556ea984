#include "app/sawtooth-record/progress_json.h"

#include "core/recording/progress_line.h"

namespace sawtooth::record {

void JsonLinesProgress::report(const std::string& stage, const std::string& run, int64_t step, int64_t steps,
                               double fraction, const std::string& message) {
  recording::ProgressLine line;
  line.stage = stage;
  line.run = run;
  line.step = step;
  line.steps = steps;
  line.fraction = fraction;
  line.message = message;
  write(recording::formatProgressLine(line));
}

void JsonLinesProgress::event(const std::string& stage, const std::string& message, const std::string& extra_json) {
  write(recording::formatStageLine(stage, message, extra_json));
}

void JsonLinesProgress::write(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace sawtooth::record
