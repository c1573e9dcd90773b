#include "app/viz/step_anim.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace microddp::viz {

float travel_progress(float p) { return std::clamp(p / kArriveAt, 0.f, 1.f); }

void order_by_storage(BuffersScene& sc) {
  std::map<int, std::vector<int>> lettered;  // rank -> its lettered rows
  for (size_t i = 0; i < sc.rows.size(); ++i)
    if (!sc.rows[i].letter.empty()) lettered[sc.rows[i].rank].push_back(static_cast<int>(i));
  for (auto& [rank, idx] : lettered) {
    std::vector<float> slots;
    for (int i : idx) slots.push_back(sc.rows[static_cast<size_t>(i)].y);
    std::sort(slots.begin(), slots.end());
    std::vector<int> by_letter = idx;
    std::stable_sort(by_letter.begin(), by_letter.end(),
                     [&](int a, int b) { return sc.rows[static_cast<size_t>(a)].letter < sc.rows[static_cast<size_t>(b)].letter; });
    for (size_t k = 0; k < by_letter.size(); ++k) {
      BufferRowDraw& row = sc.rows[static_cast<size_t>(by_letter[k])];
      const float dy = slots[k] - row.y;
      row.y = slots[k];
      for (CellDraw& c : row.cells) c.y0 += dy, c.y1 += dy;
    }
    // The rank's tag sits beside its top row.
    int top = -1;
    for (size_t i = 0; i < sc.rows.size(); ++i)
      if (sc.rows[i].rank == rank) {
        if (top < 0 || sc.rows[i].y < sc.rows[static_cast<size_t>(top)].y) top = static_cast<int>(i);
        sc.rows[i].first_of_rank = false;
      }
    if (top >= 0) sc.rows[static_cast<size_t>(top)].first_of_rank = true;
  }
  for (SwapMarkDraw& m : sc.swaps) {
    const BufferRowDraw &a = sc.rows[static_cast<size_t>(m.row_a)], &b = sc.rows[static_cast<size_t>(m.row_b)];
    const float h = a.cells.empty() ? 0 : a.cells.front().y1 - a.cells.front().y0;
    m.y0 = std::min(a.y, b.y);
    m.y1 = std::max(a.y, b.y) + (h > 0 ? h : b.y - a.y);
  }
}

float name_column_left(const BufferRowDraw& row, const BuffersLayout& lay) { return row.x + lay.char_w; }

float name_column_right(const BufferRowDraw& row, const BuffersLayout& lay) {
  return row.x + lay.tag_w + lay.label_w - lay.char_w * 2.2f - 2;
}

std::set<std::pair<int, int>> landing_storages(const Session& ses, int step) {
  std::set<std::pair<int, int>> out;
  const Schedule& s = ses.schedule();
  if (step < 0 || step >= s.num_steps()) return out;
  const auto& prov = ses.provenance();
  for (int r = 0; r < s.num_endpoints(); ++r) {
    std::array<int, kNumBufs> storage{};
    for (int b = 0; b < kNumBufs; ++b) {
      const BufferState* st = prov.find(step, r, static_cast<Buf>(b));
      storage[static_cast<size_t>(b)] = st ? st->storage : -1;
    }
    const auto of = [&](Buf b) { return storage[static_cast<size_t>(b)]; };
    for (const Op& o : s.steps[static_cast<size_t>(step)].ranks[static_cast<size_t>(r)]) {
      switch (o.kind) {
        case OpKind::recv:
        case OpKind::recv_reduce: out.insert({r, of(o.dst.buf)}); break;
        case OpKind::copy:
        case OpKind::reduce:
          if (out.count({r, of(o.src.buf)})) out.insert({r, of(o.dst.buf)});
          break;
        case OpKind::swap: std::swap(storage[static_cast<size_t>(o.src.buf)], storage[static_cast<size_t>(o.dst.buf)]); break;
        case OpKind::send: break;
      }
    }
  }
  return out;
}

namespace {

const BufferRowDraw* match(const BuffersScene& sc, const BufferRowDraw& row, bool by_storage) {
  for (const BufferRowDraw& o : sc.rows)
    if (o.rank == row.rank && (by_storage ? o.storage == row.storage : o.buf == row.buf)) return &o;
  return nullptr;
}

float smoothstep(float u) {
  u = std::clamp(u, 0.f, 1.f);
  return u * u * (3 - 2 * u);
}

}  // namespace

BuffersAnimFrame animate_buffers(const BuffersScene& before, const BuffersScene& after, float p,
                                 const BuffersLayout& lay, const std::function<float(const std::string&)>& text_w,
                                 float text_h, const std::set<std::pair<int, int>>& landing) {
  BuffersAnimFrame f;
  f.p = std::clamp(p, 0.f, 1.f);
  f.arrived = f.p >= kArriveAt;
  f.swapping = f.p >= kSwapFrom;
  const float u = f.swapping ? (f.p - kSwapFrom) / (1 - kSwapFrom) : 0.f;
  const float e = smoothstep(u);
  // Apart across while the two names are level: fully apart from u = 1/6 to
  // 5/6; before 1/6 they are more than 0.85 of a row pitch apart vertically.
  const float bump = std::min(1.f, 2 * std::sin(float(M_PI) * u));
  for (size_t i = 0; i < after.rows.size(); ++i) {
    const BufferRowDraw& row = after.rows[i];
    const bool lettered = !row.letter.empty();
    const bool waits = landing.count({row.rank, row.storage}) > 0;
    f.contents.push_back(f.arrived || !waits ? &row : match(before, row, lettered));
    NameLabelDraw l;
    l.rank = row.rank;
    l.row = static_cast<int>(i);
    l.text = row.label;
    const float home_y = row.y + (lay.row_h - text_h) / 2;
    l.x = row.x + lay.tag_w;
    l.y = home_y;
    l.w = text_w(row.label);
    l.h = text_h;
    if (row.swap_partner >= 0 && lettered) {
      // Where this name was before the step: the row of the storage that
      // `before` gave this name (the storages keep their rows).
      const BufferRowDraw* was = match(before, row, false);
      const BufferRowDraw* now_there = was ? match(after, *was, true) : nullptr;
      if (now_there && now_there->y != row.y) {
        const float from_y = now_there->y + (lay.row_h - text_h) / 2;
        const bool up = row.y < now_there->y;
        const BufferRowDraw& partner = after.rows[static_cast<size_t>(row.swap_partner)];
        const float room = name_column_right(row, lay) - name_column_left(row, lay);
        const float both = l.w + text_w(partner.label) + lay.char_w;
        const float s_min = std::min(1.f, room / both);
        l.scale = 1 - (1 - s_min) * bump;
        l.w *= l.scale;
        l.h = text_h * l.scale;
        const float yc = from_y + (home_y - from_y) * e + text_h / 2;
        l.y = yc - l.h / 2;
        const float to_x = up ? name_column_left(row, lay) : name_column_right(row, lay) - l.w;
        l.x = l.x + (to_x - l.x) * bump;
        l.moving = u < 1;
        if (!f.swapping) {  // before the swap: the name still beside its old storage
          l.y = from_y, l.x = row.x + lay.tag_w, l.w = text_w(row.label), l.h = text_h, l.scale = 1;
        }
      }
    }
    f.labels.push_back(std::move(l));
  }
  return f;
}

}  // namespace microddp::viz
