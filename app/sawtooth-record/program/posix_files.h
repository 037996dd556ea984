#pragma once
// The few file-system questions program recording asks, answered with POSIX calls. Not
// std::filesystem: sawtooth-record links LibTorch, whose libtorch.so exports its own copies of
// std::filesystem functions, and the dynamic linker binds ours to them (remove_all crashes there).

#include <string>

namespace sawtooth::record::posix {

bool exists(const std::string& path);  // without following a final symbolic link
bool isDirectory(const std::string& path);
bool isRegularFile(const std::string& path);
bool writable(const std::string& path);
std::string parentOf(const std::string& path);  // "a/b/c" -> "a/b", "c" -> "."
std::string fileName(const std::string& path);  // "a/b/c.py" -> "c.py"
std::string stem(const std::string& path);      // "a/b/c.py" -> "c"
std::string currentDirectory();
std::string thisExecutable();
// The parent of a live process (/proc/PID/stat), or 0 when it cannot be read.
int parentPid(int pid);

}  // namespace sawtooth::record::posix
