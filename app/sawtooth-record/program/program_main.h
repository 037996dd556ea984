#pragma once
// sawtooth-record [options] -- COMMAND [ARGS...]: records a program that knows nothing of
// Sawtooth. The program runs unchanged with its stdin, stdout and stderr; sawtooth-record exits
// with the program's exit status (128 + N when a signal N killed it), or 125 when it could not
// record, 126 / 127 when the command cannot be executed / is not found.

namespace sawtooth::record {

// True when the arguments ask to record a program (they contain "--").
bool isProgramRecording(int argc, char** argv);
int recordProgramMain(int argc, char** argv);

}  // namespace sawtooth::record
