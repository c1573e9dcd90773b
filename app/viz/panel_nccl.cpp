// The topology canvas's strips for NCCL's run dimensions: one strip per
// channel (its share of the elements sent, its messages this step) and the
// LL / LL128 flag words of one message turning over as it lands (scene:
// scene_nccl.cpp).
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>

#include "app/viz/panels.h"
#include "assets/palette.h"

namespace microddp::viz {

void draw_nccl_strips(ImDrawList* dl, ImVec2 origin, const TopologyScene& sc) {
  const ImU32 ink = im(from_hex(assets::kInk));
  const float fs = std::min(ImGui::GetFontSize(), 16.f);
  for (const ChannelStripDraw& c : sc.channels) {
    const ImVec2 a(origin.x + c.x0, origin.y + c.y0), b(origin.x + c.x1, origin.y + c.y1);
    dl->AddRectFilled(a, b, im(c.color));
    dl->AddRect(a, b, ink, 0, 0, 1.f);
    // The text when it fits, else "ch 3", else the number alone (a bare
    // digit read as a chunk number on lesson 12 b4; lecturer pass 8).
    const std::string full = c.text, mid = fmt::format("ch {}", c.channel), small = fmt::format("{}", c.channel);
    const float avail = b.x - a.x - 6;
    const float scale = fs / ImGui::GetFontSize();
    const auto fits = [&](const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x * scale <= avail; };
    const std::string& t = fits(full) ? full : fits(mid) ? mid : small;
    const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
    if (ts.x * scale <= avail)
      dl->AddText(ImGui::GetFont(), fs, ImVec2(a.x + (b.x - a.x - ts.x * scale) / 2, a.y + (b.y - a.y - ts.y * scale) / 2),
                  im(text_on(c.color)), t.c_str());
    if (hovered_rect(a, b))
      ImGui::SetTooltip("channel %d: %lld elements sent in the run (%.0f%%), %d message%s this step\n"
                        "each channel runs the algorithm on its own slice of the vector, at the same time",
                        c.channel, static_cast<long long>(c.elements), 100 * c.share, c.messages_step,
                        c.messages_step == 1 ? "" : "s");
  }
  const ProtocolStripDraw& p = sc.protocol;
  if (!p.shown) return;
  dl->AddText(ImGui::GetFont(), fs, ImVec2(origin.x + 8, origin.y + p.y0 + 1), ink, p.title.c_str());
  if (!p.words.empty())
    dl->AddText(ImGui::GetFont(), fs, ImVec2(origin.x + 8, origin.y + p.words.front().y1 + 3), ink, p.detail.c_str());
  const Rgba data = from_hex(0xDCE9F5);  // the payload part of a word, pale blue
  for (const FlagWordDraw& w : p.words) {
    const ImVec2 a(origin.x + w.x0, origin.y + w.y0), b(origin.x + w.x1, origin.y + w.y1);
    const ImVec2 f(origin.x + w.flag_x0, a.y);
    dl->AddRectFilled(a, ImVec2(f.x, b.y), im(data));
    dl->AddRectFilled(f, b, im(flag_color(w.set)));
    dl->AddRect(a, b, ink, 0, 0, 1.f);
    dl->AddLine(ImVec2(f.x, a.y), ImVec2(f.x, b.y), ink, 1.f);
    // The flag's value when it fits in the flag part.
    const std::string v = std::to_string(w.set ? p.new_flag : p.old_flag);
    const ImVec2 ts = ImGui::CalcTextSize(v.c_str());
    const float scale = fs / ImGui::GetFontSize();
    if (ts.x * scale + 2 <= b.x - f.x)
      dl->AddText(ImGui::GetFont(), fs, ImVec2(f.x + (b.x - f.x - ts.x * scale) / 2, a.y + (b.y - a.y - ts.y * scale) / 2),
                  im(text_on(flag_color(w.set))), v.c_str());
    if (hovered_rect(a, b))
      ImGui::SetTooltip("%s\nflag %s: %s", p.protocol == Protocol::ll ? "LL word: 4 B data + 4 B flag, one 8-byte store"
                                                                      : "LL128 line: 120 B data + an 8-byte flag word, "
                                                                        "stored last with release",
                        w.set ? "set" : "not yet", w.set ? "the receiver may read this word's data"
                                                         : "the receiver keeps polling");
  }
  if (p.more > 0 && !p.words.empty()) {
    const FlagWordDraw& last = p.words.back();
    const std::string more = fmt::format("+{} more", p.more);
    dl->AddText(ImGui::GetFont(), fs, ImVec2(origin.x + last.x1 + 6, origin.y + last.y0 + 1), ink, more.c_str());
  }
}

}  // namespace microddp::viz
