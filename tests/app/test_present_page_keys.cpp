// The clicker's page keys on continuation pages (present.h present_next,
// present_prev, present_home), driven without a window: the page counts a
// frame would have measured are set by hand. On main at 286886a Home on
// beat 1 page 2 stayed on page 2, and Left from a beat's first page opened
// the previous beat at its first page (slides open it at its last).
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "app/viz/lesson_view.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("present_page_keys") {
  TEST_CASE("Home goes to beat 1 page 1; Left from a beat's first page opens the previous beat at its last page") {
    App app;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(
        lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/03-naive-tree-ring.yaml"));
    Presenter& p = app.presenter;
    presenter_tick(app);
    p.pages = 3;  // beat 1 needs 3 pages
    present_next(app);
    CHECK(app.lesson->beat() == 0);
    CHECK(p.page == 1);
    present_home(app);  // beat 1 page 2 -> page 1
    presenter_tick(app);
    CHECK(app.lesson->beat() == 0);
    CHECK(p.page == 0);

    present_next(app);
    present_next(app);
    CHECK(p.page == 2);
    present_next(app);  // past the last page: beat 2, its first page
    presenter_tick(app);
    CHECK(app.lesson->beat() == 1);
    CHECK(p.page == 0);
    p.pages = 2;         // beat 2 needs 2 pages
    present_prev(app);   // its first page: back to beat 1 at its last page
    presenter_tick(app);
    CHECK(app.lesson->beat() == 0);
    CHECK(p.page == Presenter::kLastPage);  // until a frame counts beat 1's pages
    p.pages = 3;
    present_prev(app);  // page 3 -> page 2
    CHECK(p.page == 1);
    present_prev(app);
    CHECK(p.page == 0);
    present_prev(app);  // beat 1, page 1: stays there
    presenter_tick(app);
    CHECK(app.lesson->beat() == 0);
    CHECK(p.page == 0);

    // Home from beat 3 page 2: beat 1, page 1.
    app.lesson->go(2);
    presenter_tick(app);
    p.pages = 2;
    present_next(app);
    CHECK(p.page == 1);
    present_home(app);
    presenter_tick(app);
    CHECK(app.lesson->beat() == 0);
    CHECK(p.page == 0);
  }
}
