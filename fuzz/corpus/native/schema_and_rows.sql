CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE devices(device INTEGER PRIMARY KEY, name TEXT, total_bytes INTEGER,
                     baseline_allocated INTEGER, baseline_reserved INTEGER);
CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, workload TEXT);
CREATE TABLE run_config(run_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT);
CREATE TABLE measurements(run_id INTEGER NOT NULL, name TEXT NOT NULL, value REAL, unit TEXT);
CREATE TABLE phases(id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, device INTEGER,
                    run_id INTEGER, begin_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL);
CREATE TABLE frames(id INTEGER PRIMARY KEY, name TEXT, file TEXT, line INTEGER);
CREATE TABLE stacks(stack_id INTEGER NOT NULL, depth INTEGER NOT NULL, frame_id INTEGER NOT NULL,
                    PRIMARY KEY(stack_id, depth)) WITHOUT ROWID;
CREATE TABLE events(seq INTEGER PRIMARY KEY, t_ns INTEGER NOT NULL, device INTEGER NOT NULL,
                    source INTEGER NOT NULL, action INTEGER NOT NULL, addr INTEGER, size INTEGER,
                    stream INTEGER, category INTEGER, phase INTEGER, stack INTEGER, run INTEGER);
CREATE TABLE counters(device INTEGER NOT NULL, name TEXT NOT NULL, after_event INTEGER NOT NULL,
                      value INTEGER NOT NULL);
CREATE TABLE kernel_names(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE kernels(device INTEGER NOT NULL, stream INTEGER, begin_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                     name_id INTEGER NOT NULL, run INTEGER);
CREATE TABLE action_names(id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE source_names(id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE category_names(id INTEGER PRIMARY KEY, name TEXT);
CREATE VIEW events_named AS
  SELECT e.seq, e.t_ns, e.device, s.name AS source, a.name AS action, e.addr, e.size, e.stream,
         c.name AS category, p.name AS phase, e.stack, r.name AS run
  FROM events e
  JOIN action_names a ON a.id = e.action
  JOIN source_names s ON s.id = e.source
  LEFT JOIN category_names c ON c.id = e.category
  LEFT JOIN phases p ON p.id = e.phase
  LEFT JOIN runs r ON r.id = e.run;
INSERT INTO meta VALUES('format_version', '1');INSERT INTO devices VALUES(0, 'NVIDIA H200', 150000000000, 0, 0);INSERT INTO runs VALUES(0, 'fp32', 'precision');INSERT INTO run_config VALUES(0, 'batch', '2048');INSERT INTO measurements VALUES(0, 'step_ms', 22.5, 'ms');INSERT INTO phases VALUES(0, 'forward', 'phase', 0, 0, 0, 1500);INSERT INTO frames VALUES(0, 'forward', 'model.py', 10);INSERT INTO stacks VALUES(0, 0, 0);INSERT INTO events VALUES(0, 1000, 0, 0, 0, 4096, 512, 0, 0, 0, 0, 0);INSERT INTO events VALUES(1, 2000, 0, 0, 2, 4096, 512, 0, 0, NULL, NULL, NULL);INSERT INTO events VALUES(2, 3000, 0, 3, 9, 150000000000, 1000000, 0, 0, NULL, NULL, NULL);INSERT INTO counters VALUES(0, 'allocated', 0, 512);INSERT INTO kernel_names VALUES(0, 'gemm');INSERT INTO kernels VALUES(0, 7, 1100, 1900, 0, 0);