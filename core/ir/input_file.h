// Input files given by a user (a saved run, a recorded lab run, a lesson, a
// profile, an nccl-tests table): only a regular file (through symlinks) is
// read. A FIFO would block the reader forever and /dev/zero would fill
// memory before any parser could object. The one check, for every reader.
#pragma once
#include <string>

namespace microddp {

// What `path` is when it is not a regular file (stat follows symlinks), in
// words: "a directory", "a FIFO (named pipe)", "a character device", "a block
// device", "a socket", or "not a regular file" (anything else). "" for a
// regular file and for a path that does not exist or cannot be looked at
// (no permission: the caller's open names that). Throws nothing.
std::string irregular_file_kind(const std::string& path);

// Throws UsageError "<what> '<path>': <why>" when `path` names a directory
// ("is a directory") or anything else that is not a regular file ("is a FIFO
// (named pipe), not a regular file", "is a character device, not a regular
// file", ...), with " (<expected>)" after it when `expected` is given.
// Returns for a regular file and for a path that does not exist or cannot
// be looked at (the caller's open names that). `what` names the file's role, e.g. "record
// file"; `expected`, e.g. "run `microddp calibrate` to write one".
void require_regular_file(const std::string& path, const std::string& what, const std::string& expected = "");

}  // namespace microddp
