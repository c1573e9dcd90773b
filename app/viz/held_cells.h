// The buffers held before a beat's steps while its question is open
// (LessonView::buffers_position): lesson 01 beat 3 asks how many elements the
// root's output holds, and eight empty slots would answer it.
#pragma once
#include "app/viz/scene.h"

namespace microddp::viz {

// Each row's runs of adjacent never-written cells (defined false, no
// contributor) made one cell spanning them (chunk -1, begin of the first,
// len the sum, in elements); written cells are kept as they are.
void merge_unwritten_cells(BuffersScene& sc);

}  // namespace microddp::viz
