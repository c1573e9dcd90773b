#include "app/viz/handout.h"

#include <cairo-pdf.h>
#include <cairo.h>
#include <fmt/format.h>

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "app/viz/headless_run.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "core/labs/lesson/plan.h"

namespace microddp::viz {

struct HandoutPdf::Impl {
  cairo_surface_t* surface = nullptr;
  cairo_t* cr = nullptr;
  bool finished = false;
};

HandoutPdf::HandoutPdf(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  impl_->surface = cairo_pdf_surface_create(path.c_str(), kPageW, kPageH);
  if (cairo_surface_status(impl_->surface) != CAIRO_STATUS_SUCCESS) {
    const std::string why = cairo_status_to_string(cairo_surface_status(impl_->surface));
    cairo_surface_destroy(impl_->surface);
    throw std::runtime_error(fmt::format("cannot write the handout {}: {}", path, why));
  }
  cairo_pdf_surface_set_metadata(impl_->surface, CAIRO_PDF_METADATA_CREATOR, "microddp-viz");
  impl_->cr = cairo_create(impl_->surface);
}

HandoutPdf::~HandoutPdf() {
  try {
    finish();
  } catch (...) {
  }
}

void HandoutPdf::finish() {
  if (impl_->finished) return;
  impl_->finished = true;
  cairo_destroy(impl_->cr);
  cairo_surface_finish(impl_->surface);
  const cairo_status_t st = cairo_surface_status(impl_->surface);
  cairo_surface_destroy(impl_->surface);
  if (st != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("writing the handout {}: {}", path_, cairo_status_to_string(st)));
}

namespace {

constexpr double kBody = 10.5, kHeading = 13, kLead = 1.35;

void set_font(cairo_t* cr, double size, bool bold, bool mono = false) {
  cairo_select_font_face(cr, mono ? "DejaVu Sans Mono" : "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double width_of(cairo_t* cr, std::string_view s) {
  cairo_text_extents_t e;
  const std::string t(s);
  cairo_text_extents(cr, t.c_str(), &e);
  return e.x_advance;
}

// The beat's text and question as page() prints them, line by line:
// emit(line, size, bold, mono) for each, gap(points) before a paragraph and
// before the question. The text's runs are joined into paragraphs
// (emphasis drawn plain: the markup's words stay, the asterisks go),
// indented lines kept as they are.
template <class Emit, class Gap>
void text_lines(cairo_t* cr, double width, const std::string& text, const std::vector<std::string>& question, Emit emit,
                Gap gap) {
  const auto wrapped = [&](const std::string& s, double size, bool bold) {
    set_font(cr, size, bold);
    for (const std::string& l : wrap_words(s, float(width), [&](std::string_view wd) { return float(width_of(cr, wd)); }))
      emit(l, size, bold, false);
  };
  std::string para;
  const auto flush = [&] {
    if (!para.empty()) wrapped(para, kBody, false);
    para.clear();
  };
  for (const TextRun& run : text_runs(text)) {
    if (run.paragraph) {
      flush();
      gap(kBody * 0.6);
    } else if (run.newline) {
      flush();
    }
    if (run.pre) {
      flush();
      emit(run.text, kBody, false, true);
      continue;
    }
    para += run.text;
  }
  flush();
  if (!question.empty()) {
    gap(kBody * 0.8);
    wrapped(question.front(), kBody, true);
    for (size_t i = 1; i < question.size(); ++i) wrapped(question[i], kBody, false);
  }
}

// The heading's height: its lines and the 4 pt under them.
double heading_pt(cairo_t* cr, double width, const std::string& heading) {
  set_font(cr, kHeading, true);
  return double(wrap_words(heading, float(width), [&](std::string_view wd) { return float(width_of(cr, wd)); }).size()) *
             kHeading * kLead +
         4;
}

// The gap between the picture and the text below it (points).
constexpr double kUnderPicture = 14;

}  // namespace

double HandoutPdf::words_pt(const std::string& heading, const std::string& text,
                            const std::vector<std::string>& question) const {
  cairo_t* cr = impl_->cr;
  const double width = kPageW - 2 * kMargin;
  double h = heading_pt(cr, width, heading) + kUnderPicture;
  text_lines(cr, width, text, question, [&](const std::string&, double size, bool, bool) { h += size * kLead; },
             [&](double g) { h += g; });
  return h;
}

float handout_picture_h(double words_pt, float display_w, float default_h, float display_h) {
  using P = HandoutPdf;
  const double scale = (P::kPageW - 2 * P::kMargin) / std::max(display_w, 1.f);  // points per window pixel
  const double room = P::kPageH - 2 * P::kMargin - words_pt;
  const float h = float(std::floor(room / scale)) - 2;  // a pixel or two under: the crop's rounding
  if (h <= default_h) return 0;
  return std::min(h, display_h);
}

double handout_picture_scale(int w_px, int h_px) {
  using P = HandoutPdf;
  const double text_w = P::kPageW - 2 * P::kMargin;
  // Below the picture: the heading and four lines of text at least.
  const double height_pt = P::kPageH - 2 * P::kMargin - kHeading * kLead - 4 * kBody * kLead - 18;
  return std::min(text_w / std::max(w_px, 1), height_pt / std::max(h_px, 1));
}

double handout_text_pt(float px, int w_px, int h_px) { return double(px) * handout_picture_scale(w_px, h_px); }

void HandoutPdf::page(const std::vector<uint8_t>& rgba, int w, int h, const std::string& heading,
                      const std::string& text, const std::vector<std::string>& question) {
  if (w <= 0 || h <= 0 || rgba.size() != size_t(w) * size_t(h) * 4)
    throw std::invalid_argument(fmt::format("handout picture: {} bytes for {}x{} pixels", rgba.size(), w, h));
  cairo_t* cr = impl_->cr;
  const double text_w = kPageW - 2 * kMargin;
  double y = kMargin;
  const double foot = kPageH - kMargin;
  const auto show = [&](const std::string& s, double size, bool bold, bool mono = false) {
    set_font(cr, size, bold, mono);
    cairo_move_to(cr, kMargin, y + size);
    cairo_show_text(cr, s.c_str());
    y += size * kLead;
  };
  const auto wrap = [&](const std::string& s, double size, bool bold) {
    set_font(cr, size, bold);
    return wrap_words(s, float(text_w), [&](std::string_view wd) { return float(width_of(cr, wd)); });
  };
  cairo_set_source_rgb(cr, 0, 0, 0);
  for (const std::string& l : wrap(heading, kHeading, true)) show(l, kHeading, true);
  y += 4;
  // The picture: cairo's RGB24 is one native-endian 32-bit word per pixel.
  cairo_surface_t* img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  cairo_surface_flush(img);
  unsigned char* data = cairo_image_surface_get_data(img);
  const int stride = cairo_image_surface_get_stride(img);
  for (int r = 0; r < h; ++r) {
    auto* row = reinterpret_cast<uint32_t*>(data + size_t(r) * size_t(stride));
    for (int c = 0; c < w; ++c) {
      const uint8_t* p = &rgba[(size_t(r) * size_t(w) + size_t(c)) * 4];
      row[c] = uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | uint32_t(p[2]);
    }
  }
  cairo_surface_mark_dirty(img);
  const double scale = handout_picture_scale(w, h);
  cairo_save(cr);
  cairo_translate(cr, kMargin, y);
  cairo_scale(cr, scale, scale);
  cairo_set_source_surface(cr, img, 0, 0);
  cairo_paint(cr);
  cairo_restore(cr);
  cairo_surface_destroy(img);
  cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
  cairo_set_line_width(cr, 0.5);
  cairo_rectangle(cr, kMargin, y, w * scale, h * scale);
  cairo_stroke(cr);
  picture_pt_ = {w * scale, h * scale};
  y += h * scale + kUnderPicture;

  cairo_set_source_rgb(cr, 0, 0, 0);
  // A line that does not fit above the foot starts a continuation page.
  const auto line = [&](const std::string& s, double size, bool bold, bool mono) {
    if (y + size * kLead > foot) {
      set_font(cr, kBody, false);
      cairo_move_to(cr, kMargin, foot + kBody);
      cairo_show_text(cr, "(continued on the next page)");
      cairo_show_page(cr);
      ++pages_;
      ++continued_;
      y = kMargin;
      cairo_set_source_rgb(cr, 0, 0, 0);
      for (const std::string& l : wrap(heading + " (continued)", kHeading, true)) show(l, kHeading, true);
      y += 4;
    }
    show(s, size, bold, mono);
  };
  text_lines(cr, text_w, text, question, line, [&](double g) { y += g; });
  cairo_show_page(cr);
  ++pages_;
}

int handout_picture_rows(float lesson_top, float display_h, int h, float gap) {
  if (lesson_top < 0 || display_h <= 0) return h;
  const float scale = float(h) / display_h;
  return std::clamp(int(std::floor((lesson_top - gap) * scale)), 1, h);
}

std::vector<uint8_t> top_rows(const std::vector<uint8_t>& rgba, int w, int rows) {
  const size_t n = size_t(std::max(0, w)) * size_t(std::max(0, rows)) * 4;
  if (rgba.size() < n)
    throw std::invalid_argument(fmt::format("handout picture: {} bytes for {} rows of {} pixels", rgba.size(), rows, w));
  return std::vector<uint8_t>(rgba.begin(), rgba.begin() + std::ptrdiff_t(n));
}

int export_handout(App& app, Frames& f, const Options& o) {
  LessonView& lesson = *app.lesson;
  const int beats = lesson.num_beats();
  const std::string path = o.export_dir + "/handout.pdf";
  HandoutPdf pdf(path);
  std::vector<uint8_t> px;
  int cw = 0, ch = 0;
  for (int b = 0; b < beats; ++b) {
    lesson.go(b);
    lesson_sync(app);
    lesson.wait_checks();
    if (app.vs.view == View::ddp) app.ddp.runner.wait();  // the beat's own run, finished
    app.vs.static_frame = true;
    app.vs.handout = true;
    app.vs.present = true;  // a page is a slide: no controls, the lesson panel's top known (present.h)
    app.vs.collect_probes = false;
    app.presenter.handout_picture_h = 0;
    for (int i = 0; i < 3; ++i) f.frame();  // let the layout settle
    // The page's room below the words: the picture takes it (taller than
    // the default split's when the text is short), at the page's width.
    const lesson::Beat& beat = lesson.current();
    const std::string heading = fmt::format("{} - beat {} of {}", lesson.lesson().title, b + 1, beats);
    std::vector<std::string> q;
    if (beat.question) {
      q.push_back("Question: " + lesson::plain_text(beat.question->ask));
      for (size_t i = 0; i < beat.question->choices.size(); ++i)
        q.push_back(fmt::format("  {}. {}", i + 1, lesson::plain_text(beat.question->choices[i])));
      // --reveal: the answer and its explanation, as the PNG slides show them.
      if (app.presenter.reveal_all) {
        q.push_back("Answer: " + lesson::plain_text(beat.question->answer_text()));
        if (!beat.question->explain.empty()) q.push_back(lesson::plain_text(beat.question->explain));
      }
    }
    const ImVec2 disp = ImGui::GetIO().DisplaySize;
    const float gap = ImGui::GetStyle().ItemSpacing.y / 2;
    app.presenter.handout_picture_h =
        handout_picture_h(pdf.words_pt(heading, beat.text, q), disp.x, app.presenter.lesson_top - gap, disp.y);
    if (app.presenter.handout_picture_h > 0)
      for (int i = 0; i < 3; ++i) f.frame();
    f.frame(&px, &cw, &ch);
    app.presenter.handout_picture_h = 0;
    // The picture alone: the lesson panel's text is the page's text below.
    const int rows = handout_picture_rows(app.presenter.lesson_top, ImGui::GetIO().DisplaySize.y, ch,
                                          ImGui::GetStyle().ItemSpacing.y / 2);
    px = top_rows(px, cw, rows);
    ch = rows;
    pdf.page(px, cw, ch, heading, beat.text, q);
  }
  pdf.finish();
  if (pdf.continued() == 0)
    std::printf("wrote %s (%d pages, one per beat of %d)\n", path.c_str(), pdf.pages(), beats);
  else
    std::printf("wrote %s (%d pages for %d beats: %d continuation page%s)\n", path.c_str(), pdf.pages(), beats,
                pdf.continued(), pdf.continued() == 1 ? "" : "s");
  return 0;
}

}  // namespace microddp::viz
