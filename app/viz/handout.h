// A lesson's handout as PDF (microddp-viz --lesson L --export-frames DIR
// --format pdf): one A4 portrait page per beat, the beat's picture (the
// window as --export-frames draws that beat, its run finished, cut above the
// lesson panel: the picture alone, the page's width) above its heading, its
// text (once, without markup) and its question with the choices (not the
// answer: a handout to work through). Written with cairo's PDF surface (Debian
// libcairo2-dev); text in DejaVu Sans through cairo's font selection.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace microddp::viz {

struct App;
class Frames;
struct Options;

// One page per beat; sizes in PDF points (1/72 inch).
class HandoutPdf {
 public:
  static constexpr double kPageW = 595.28, kPageH = 841.89, kMargin = 42;  // A4 portrait
  // Opens path for writing; std::runtime_error naming path when cairo cannot.
  explicit HandoutPdf(const std::string& path);
  ~HandoutPdf();
  HandoutPdf(const HandoutPdf&) = delete;
  HandoutPdf& operator=(const HandoutPdf&) = delete;
  // A page: the picture (RGBA8, w x h pixels, top row first) scaled to the
  // text width, then heading (bold), text (lesson markup: paragraphs,
  // *emphasis*, indented lines kept as they are) and question lines, wrapped
  // at spaces; text past the page's foot is cut with a last line saying so.
  // std::invalid_argument when rgba is not w * h * 4 bytes.
  void page(const std::vector<uint8_t>& rgba, int w, int h, const std::string& heading, const std::string& text,
            const std::vector<std::string>& question);
  int pages() const { return pages_; }
  // Ends the document; std::runtime_error naming the file when cairo
  // reports an error (a full disk). Called by the destructor otherwise
  // (errors then ignored).
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  int pages_ = 0;
};

// The rows of a window picture `h` pixels high that a handout page shows:
// those above the lesson panel, whose top is at `lesson_top` of a window
// `display_h` pixels high (the picture may be read back at another scale,
// a HiDPI framebuffer), less `gap` window pixels of the space between the
// panels; all h rows when lesson_top < 0 (no lesson panel drawn). At least
// 1, at most h.
int handout_picture_rows(float lesson_top, float display_h, int h, float gap);
// The first `rows` rows of an RGBA8 picture `w` pixels wide (top row first).
// std::invalid_argument when rgba holds fewer than w * rows * 4 bytes.
std::vector<uint8_t> top_rows(const std::vector<uint8_t>& rgba, int w, int rows);

// --export-frames DIR --format pdf with --lesson: DIR/handout.pdf, every
// beat's slide as export_beats_png draws it (lesson_sync, checks and a DDP
// beat's run waited for), cut above its lesson panel (handout_picture_rows:
// the text is printed once, below the picture). Returns 0; prints the file and its page count.
int export_handout(App& app, Frames& f, const Options& o);

}  // namespace microddp::viz
