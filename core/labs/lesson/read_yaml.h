// Reading lesson YAML (internal to core/labs/lesson): typed values from
// yaml-cpp nodes, each failing with a LessonError that starts with the
// node's "file:line:column: " and says what was expected. Shared by the
// lesson parser (parse_lesson.cpp) and the check parsers (checks_*.cpp).
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/labs/lesson/lesson.h"

namespace microddp::lesson::yaml {

// The file being read, for marks and messages.
struct Ctx {
  std::string file;
  Mark mark(const YAML::Node& n) const;
  // Throws LessonError("file:line:column: msg") at n's mark.
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const;
};

// Throws LessonError("file:line:column: duplicate key 'k' in this mapping
// (first at line L)") at the first repeated key of any mapping in `text`
// (yaml-cpp keeps both and n["k"] finds the first, so a repeat would be
// silently ignored). Reads the text's events, not the node tree: an alias
// is one event, so a document of nested aliases costs its length, not its
// expansion. Call it on text that YAML::Load accepted.
void no_duplicate_keys(const std::string& text, const std::string& file);

// yaml-cpp 0.7 accepts a quoted scalar left open when the text ends in a
// line break: its scanner checks for the end of the input only inside a
// line (src/scanscalar.cpp, ScanScalar: the EOF test follows phase 1 and
// is never reached after the last break), so the rest of the file becomes
// the string's value and the lesson then lacks its later keys. The same
// text without its final line break raises yaml-cpp's own "illegal EOF in
// scalar". Throws LessonError("file:L:C: not valid YAML: illegal EOF in
// scalar (the quoted string that starts here is never closed)") with L:C
// the opening quote. Call it on text that YAML::Load accepted.
void no_open_quote(const std::string& text, const std::string& file);
// The same message for yaml-cpp's own EOF_IN_SCALAR error on `text` (no
// final line break): e is that error; the mark is the opening quote when
// it can be found, else e's.
[[noreturn]] void open_quote_error(const std::string& text, const std::string& file, const YAML::Exception& e);

// The data file `n` names (a record, a lab run, an nccl-tests table),
// relative to the lesson's folder unless absolute: the path to open.
// Looked at before anything opens it: a directory fails at n with "'F' is
// a directory", a device, FIFO or socket with "'F' is not a regular file
// (a character device)" (F as written; /dev/zero would be read forever, a
// FIFO would block). A path that does not exist passes: its reader's open
// says so. lesson_files.cpp.
std::string data_file(const Ctx& c, const YAML::Node& n, const std::string& f);

// "a, b, c".
std::string join(const std::vector<std::string>& v);

// Every key of map `n` must be one of `allowed` (else: "unknown key 'k' in
// WHERE (expected one of: ...)"). `also`: further allowed keys, listed
// after the main ones as "; also: ...", so that the messages about the
// original keys keep their wording.
void only_keys(const Ctx& c, const YAML::Node& n, const std::string& where, const std::vector<std::string>& allowed,
               const std::vector<std::string>& also = {});

// A scalar's text; `key` names it in the message.
std::string str(const Ctx& c, const YAML::Node& n, const std::string& key);
// A whole integer in lo..hi.
int64_t integer(const Ctx& c, const YAML::Node& n, const std::string& key, int64_t lo, int64_t hi);
// The key `key` of mapping `map` (map itself when absent): an empty value
// ("minutes:" then a line break) is marked at the next token, its key at
// its own line and column.
YAML::Node key_node(const YAML::Node& map, const std::string& key);
// A finite number; an empty value is "must be a number, got nothing".
double number(const Ctx& c, const YAML::Node& n, const std::string& key);
// true or false.
bool boolean(const Ctx& c, const YAML::Node& n, const std::string& key);
// A sequence. Returns a copy (a YAML::Node is a handle): callers pass
// temporaries such as n["key"], and range-for over a returned reference
// would dangle.
YAML::Node seq(const Ctx& c, const YAML::Node& n, const std::string& key);
// A scalar that is one of `ok`.
std::string one_of(const Ctx& c, const YAML::Node& n, const std::string& key, const std::vector<std::string>& ok);

// "4096", "4K", "64M", "1G" (K, M, G = powers of 1024, as bench's -b) in
// bytes; -1 when it is not a positive whole number of bytes below 2^40.
int64_t bytes_with_unit(std::string t);

// The buffer names a check or a highlight may use.
extern const std::vector<std::string> kBufNames;

}  // namespace microddp::lesson::yaml
