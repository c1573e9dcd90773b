// A lesson's handout as PDF (microddp-viz --lesson L --export-frames DIR
// --format pdf): one A4 landscape page per beat, its heading, the beat's
// picture (the window as --export-frames draws that beat, its run finished,
// cut above the lesson panel: the picture alone, the page's width, so that
// its text prints at about 9 pt and more: handout_picture_scale; as tall as
// the words below it leave room for: handout_picture_h), its text
// (once, without markup) and its question with the choices (not the answer:
// a handout to work through); text that does not fit goes on over a
// continuation page. Written with cairo's PDF surface (Debian
// libcairo2-dev); text in DejaVu Sans through cairo's font selection.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace microddp::viz {

struct App;
class Frames;
struct Options;

// One page per beat (more when its text is long); sizes in PDF points (1/72 inch).
class HandoutPdf {
 public:
  // A4 landscape: a 1280 px window's picture prints 786 pt wide (0.61 pt
  // per pixel: 18 px text at 11 pt, the 14 px least text of --present at
  // 8.6 pt; A4 portrait printed them at 7.2 and 5.6 pt).
  static constexpr double kPageW = 841.89, kPageH = 595.28, kMargin = 28;
  // Opens path for writing; std::runtime_error naming path when cairo cannot.
  explicit HandoutPdf(const std::string& path);
  ~HandoutPdf();
  HandoutPdf(const HandoutPdf&) = delete;
  HandoutPdf& operator=(const HandoutPdf&) = delete;
  // A beat: heading (bold), the picture (RGBA8, w x h pixels, top row
  // first) at handout_picture_scale, then the text (lesson markup:
  // paragraphs, *emphasis*, indented lines kept as they are) and question
  // lines, wrapped at spaces. Text past the page's foot goes on over
  // continuation pages (the heading again, "(continued)"), never cut.
  // std::invalid_argument when rgba is not w * h * 4 bytes.
  void page(const std::vector<uint8_t>& rgba, int w, int h, const std::string& heading, const std::string& text,
            const std::vector<std::string>& question);
  // The points that the heading, the text and the question take on a
  // page (their lines as page() prints them, with the gap above the text),
  // the picture left out: a page has kPageH - 2 kMargin - words_pt for
  // its picture (handout_picture_h).
  double words_pt(const std::string& heading, const std::string& text, const std::vector<std::string>& question) const;
  // The last page()'s picture as printed: width and height in points.
  std::pair<double, double> picture_pt() const { return picture_pt_; }
  int pages() const { return pages_; }        // pages written, continuations included
  int continued() const { return continued_; }  // of them, continuation pages
  // Ends the document; std::runtime_error naming the file when cairo
  // reports an error (a full disk). Called by the destructor otherwise
  // (errors then ignored).
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  int pages_ = 0, continued_ = 0;
  std::pair<double, double> picture_pt_{0, 0};
};

// Points per window pixel of a picture `w_px` pixels wide on a handout
// page: the page's width between its margins, and never more than
// `height_pt` / `h_px` (the picture leaves room below it for the heading
// and four lines of text: a very tall picture is scaled down to that).
// 786 / 1280 = 0.614 for the default window.
double handout_picture_scale(int w_px, int h_px);
// The size in points at which text drawn `px` pixels high in a picture
// `w_px` x `h_px` pixels prints (px * handout_picture_scale).
double handout_text_pt(float px, int w_px, int h_px);

// The height in window pixels that a beat's picture may take on its page
// (issue 37: the picture cut above the lesson panel's default share filled
// about 35% of an A4 page): the page's height less `words_pt` (words_pt)
// at the width's scale (786 pt for a `display_w` = 1280 px window: 0.614 pt
// per pixel, 18 px text at 11 pt), a pixel or two under; at most
// `display_h`. 0 when that is no more than `default_h` (the picture the
// layout gives anyway: a long text keeps it and goes on over a
// continuation page). export_handout asks the layout for it
// (Presenter::handout_picture_h).
float handout_picture_h(double words_pt, float display_w, float default_h, float display_h);

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
// the text is printed once, below the picture). Returns 0; prints the file
// and its page count ("(6 pages, one per beat of 6)", or "(9 pages for 8
// beats: 1 continuation page)").
int export_handout(App& app, Frames& f, const Options& o);

}  // namespace microddp::viz
