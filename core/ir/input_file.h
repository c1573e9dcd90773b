// Input files given by a user (a saved run, a recorded lab run): only a
// regular file (through symlinks) is read. A FIFO would block the reader
// forever and /dev/zero would fill memory before any parser could object.
#pragma once
#include <string>

namespace microddp {

// Throws UsageError "<what> '<path>': <why>" when `path` names a directory
// or anything else that is not a regular file (a FIFO, a character or block
// device, a socket). Returns for a regular file and for a path that does not
// exist (the caller's open names that). `what` names the file's role, e.g.
// "record file".
void require_regular_file(const std::string& path, const std::string& what);

}  // namespace microddp
