// lesson_answer_first MICRODDP LESSON.yaml: runs `MICRODDP lesson LESSON.yaml
// --non-interactive`, prints its output, and fails (exit 1) when something
// printed before a question's answer line gives the answer away
// (tests/lessons/output_answers.h); else exits with the lesson's status.
// ctest's lessons.run.<lesson> runs every shipped lesson through it.
// lesson_answer_first --output OUT.txt LESSON.yaml checks a saved output.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "lessons/output_answers.h"

namespace {
// Runs the lesson; its output in `out`; its exit status (-1: could not run).
int run(const char* microddp, const char* lesson, std::string& out) {
  const std::string cmd = fmt::format("'{}' lesson '{}' --non-interactive 2>&1", microddp, lesson);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    std::perror("popen");
    return -1;
  }
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
}  // namespace

int main(int argc, char** argv) {
  const bool saved = argc == 4 && std::string(argv[1]) == "--output";
  if (argc != 3 && !saved) {
    std::fprintf(stderr, "usage: lesson_answer_first MICRODDP LESSON.yaml | --output OUT.txt LESSON.yaml\n");
    return 2;
  }
  const char* lesson_file = saved ? argv[3] : argv[2];
  std::string out;
  int rc = 0;
  if (saved) {
    std::ifstream f(argv[2]);
    if (!f) {
      std::fprintf(stderr, "cannot read '%s'\n", argv[2]);
      return 2;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    out = ss.str();
  } else {
    rc = run(argv[1], lesson_file, out);
    if (rc < 0) return 2;
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  const auto found = microddp::test::answers_before_questions(microddp::lesson::load_lesson(lesson_file), out);
  for (const auto& f : found) std::printf("FAIL: answer before its question: %s\n", f.c_str());
  if (!found.empty()) return 1;
  return rc;
}
