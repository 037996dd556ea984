#pragma once
// Follows a recording while the recorder writes it: every interval (250 ms: 4 refreshes a second)
// a job reads the events committed since the last poll (core/io/live_tail.h, off the GUI thread),
// and the GUI thread appends them to the live timeline (core/analysis/live_timeline.h; cost in
// proportion to the new events) before telling the chart. One poll at a time; a poll that stopped
// at its row limit is followed at once by the next.
// A recording whose processes write files of their own (a distributed run's ranks, a program's
// processes) is followed through each of them as the recorder names them (addFile): one timeline,
// a device per file and device (core/analysis/live_sources.h).

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <memory>

#include "app/sawtooth/job_runner.h"
#include "core/analysis/live_sources.h"
#include "core/analysis/live_timeline.h"

namespace sawtooth {
class LiveTail;
}

namespace sawtooth::app {

class LiveFollower : public QObject {
  Q_OBJECT
 public:
  // The live timeline holds about 32 bytes an event; past this many it stops growing (the whole
  // recording opens when it ends) instead of taking the machine's memory during a long run. Only
  // files without summaries are drawn from it that long: once every file's summaries draw the
  // chart (LiveRecordingTab), it holds no more rows. A recording that keeps only its last N events
  // (--window-events: no summaries until it ends) is instead read again from its window's start
  // when the timeline is full, as long as the window fits in half the limit: the live view then
  // shows the recording's window, and has no length limit. Several such files (a distributed run's
  // ranks) are read again together when their windows together fit.
  static constexpr uint64_t kDefaultMaxEvents = 20'000'000;
  // About what the live timeline holds per event (the limit above is 640 MB of it).
  static constexpr uint64_t kBytesPerEvent = 32;

  LiveFollower(QString path, JobRunner* jobs, QObject* parent = nullptr);
  ~LiveFollower() override;

  void start(int interval_ms = 250);
  // Another file of the same recording, drawn with `label` ("rank 1"); the file this follower was
  // made with gets the label if it is that file.
  void addFile(const QString& path, const QString& label);
  // A file the recorder says one of its processes writes. The file this follower was made with is
  // dropped if it has not appeared yet: a distributed recording writes it only when it merges the
  // ranks' files at the end, and the ranks are drawn already (if a process does write it after
  // all, the recorder says so and it is followed again).
  void addAnnouncedFile(const QString& path, const QString& label);
  int files() const;
  // The files followed (those dropped left out), in the order they came; `source` numbers a file
  // as its devices' ids in the timeline do (core/analysis/live_sources.h).
  struct Followed {
    QString path;
    std::string label;
    size_t source = 0;
  };
  std::vector<Followed> followed() const;
  // Stops polling; a poll in flight is dropped.
  void stop();

  const LiveTimeline& timeline() const { return timeline_; }
  void setMaxEvents(uint64_t events) { max_events_ = events; }
  uint64_t maxEvents() const { return max_events_; }
  // Windowed recordings whose windows together need more than half the limit: the limit is raised
  // to twice their windows, as long as that stays within `events` (the app gives it the memory a
  // file read whole may take: Settings ▸ Reading limits). The run's length is no limit then, the
  // window's size bounds the memory.
  void setWindowedCeiling(uint64_t events) { windowed_ceiling_ = events; }
  // The timeline reached max events and stopped growing.
  bool capped() const { return capped_; }
  // How many times the timeline was read again from the recording's window (see above).
  int windowRestarts() const { return window_restarts_; }
  // The events the followed files' windows hold together; 0 when any of them keeps every event.
  uint64_t windowEvents() const;
  const QString& path() const { return path_; }
  int refreshes() const { return refreshes_; }
  // The last refresh: reading the new rows (worker thread) and appending them (GUI thread).
  double lastReadMs() const { return last_read_ms_; }
  double lastAppendMs() const { return last_append_ms_; }
  QString error() const { return error_; }

 signals:
  void grew();
  void failed(QString message);
  // No recorder holds the file any more and every event has been read (once).
  void recordingEnded();
  // The timeline reached its event limit and stops growing (once); polling goes on for the end.
  void reachedLimit();
  // The timeline was full, or the recorder deleted rows not read yet (a window's cut came past
  // them), and is read again from the window a recording of its last `events` events keeps (each time).
  void restartedAtTheWindow(quint64 events);

 private:
  void poll();
  // The timeline is full: read again from the recording's window if it keeps one that fits.
  void onFull();
  // Every file read again from its start (a recording's window), the timeline emptied.
  void readAgainFromTheWindow();
  // The rows the timeline may still take under the limit.
  uint64_t room() const { return max_events_ > timeline_.events() ? max_events_ - timeline_.events() : 0; }

  struct Source {
    QString path;
    std::string label;
    std::shared_ptr<LiveTail> tail;
    bool ready = false;     // the file has appeared with its tables
    bool complete = false;  // its recorder let go of it and every row was read
    bool dropped = false;
    uint64_t window_events = 0;  // its window.last_events (0: it keeps every event)
  };
  static constexpr size_t kMaxFiles = 256;

  QString path_;
  QPointer<JobRunner> jobs_;  // the window's: it may go before this
  std::vector<Source> sources_;
  LiveSourceMap source_map_;
  LiveTimeline timeline_;
  QTimer timer_;
  bool in_flight_ = false;
  bool ended_ = false;
  bool capped_ = false;
  uint64_t max_events_ = kDefaultMaxEvents;
  uint64_t windowed_ceiling_ = kDefaultMaxEvents;
  bool refilling_ = false;      // read again from the window, not caught up yet
  uint64_t refilled_ = 0;       // the rows the window held when caught up
  int window_restarts_ = 0;
  int refreshes_ = 0;
  double last_read_ms_ = 0;
  double last_append_ms_ = 0;
  QString error_;
};

}  // namespace sawtooth::app
