// The rank tag left of a rank's buffer rows (scene.h rank_tag_width):
// lesson 09 beat 6 drew "R10input", the two-digit tag run into the row's
// name. No ImGui, no GL.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

#include "app/viz/scene.h"
#include "app/viz/step_anim.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("buffers_tag") {
  TEST_CASE("16 ranks: every rank's tag ends at least half a digit before its first row's name") {
    RunParams p;
    p.spec.algorithm = "recursive_doubling";
    p.spec.world_size = 16;
    p.spec.nodes = 2;
    p.spec.count = 16;
    Session ses;
    ses.configure(p);
    // DejaVu Sans at 18 px: digits 11.4 px, "R" 12.5 px (0.636 and 0.695 em).
    const auto text_w = [](const std::string& s) {
      float w = 0;
      for (const char c : s) w += c == 'R' ? 12.5f : 11.4f;
      return w;
    };
    BuffersLayout lay;
    lay.char_w = 11.4f;
    lay.tag_w = rank_tag_width(lay.char_w, text_w("R00"));
    CHECK(lay.tag_w == doctest::Approx(11.4f + 35.3f + 11.4f));
    lay.label_w = 9 * 11.4f;
    lay.columns = 3;
    lay.width = 900;
    BuffersScene sc = build_buffers(ses, 1, lay);
    order_by_storage(sc);
    const BuffersAnimFrame f = animate_buffers(sc, sc, 1, lay, text_w, 18, {});
    REQUIRE(f.labels.size() == sc.rows.size());
    int tags = 0;
    for (size_t i = 0; i < sc.rows.size(); ++i) {
      const BufferRowDraw& row = sc.rows[i];
      if (!row.first_of_rank) continue;
      ++tags;
      CHECK(row.tag == fmt::format("R{}", row.rank));
      // panel_buffers.cpp: the tag's text from char_w right of the row's left edge.
      const float tag_end = row.x + lay.char_w + text_w(row.tag);
      INFO(row.tag, " ends at ", tag_end, ", ", f.labels[i].text, " starts at ", f.labels[i].x);
      CHECK(f.labels[i].x >= tag_end + lay.char_w / 2);
    }
    CHECK(tags == 16);
  }
}
