// A note after a buffer row's name in the buffers panel: for the double
// buffer's storage that received in the shown step and whose name a swap in
// that step changed (lesson 02 beat 2: storage B received T2, then the swap
// named it send_buff), what it received: "(got T2)" when it holds one
// rank's input alone, else "(got R2's)". So the lit row reads "send_buff
// (got T2)" beside the beat's "receives ... into recv_buff ... it becomes
// send_buff". The buffers panel draws it in a lesson (the name column
// widens by the note, the cells give that room). "" for every other row,
// before step 0, or with no configured run. position: steps run (0 =
// before step 0), as build_buffers takes it; r: the endpoint.
#pragma once
#include <string>

#include "app/viz/session.h"

namespace microddp::viz {

std::string received_note(const Session& ses, int position, int r, Buf b);

}  // namespace microddp::viz
