// The Transport of core/exec/rank_program.h over MPI_Isend / MPI_Irecv on
// microddp's own communicator: one message id of the plan = one tag.
#include "core/exec/mpi/mpi_internal.h"

namespace microddp::mpi_detail {

MpiTransport::MpiTransport(const Schedule& s, const MessagePlan& plan, int me, const ShmWindow* window)
    : window_(window), plan_(plan), me_(me), slots_(plan.num_messages) {
  if (window_) return;  // direct reads: nothing staged
  // Staging for every recv_reduce of this rank, allocated (and its pages
  // touched) before the clock starts, as the threads backend needs none.
  const size_t es = dtype_size(s.spec.dtype);
  for (int st = 0; st < s.num_steps(); ++st) {
    const auto& ops = s.steps[st].ranks[me];
    for (size_t i = 0; i < ops.size(); ++i)
      if (ops[i].kind == OpKind::recv_reduce) slots_[plan.msg[st][me][i]].staging.resize(ops[i].len * es);
  }
}

void MpiTransport::post_send(int, int64_t msg, const void* data, int64_t bytes) {
  if (window_) return shm_post_send(msg, data, bytes);
  Slot& s = slots_[msg];
  s.reqs.clear();
  post_pieces(true, const_cast<void*>(data), bytes, plan_.dst[msg], tag_of(msg), s.reqs);
}
void MpiTransport::post_recv(int, int64_t msg, void* dst, int64_t bytes, bool reduce) {
  if (window_) return shm_post_recv(msg, bytes);
  Slot& s = slots_[msg];
  s.reqs.clear();
  s.staged = reduce;
  void* target = dst;
  if (reduce) {
    if (s.staging.size() < static_cast<size_t>(bytes)) s.staging.resize(bytes);
    target = s.staging.data();
  }
  post_pieces(false, target, bytes, plan_.src[msg], tag_of(msg), s.reqs);
}
const void* MpiTransport::arrived(int, int64_t msg) {
  Slot& s = slots_[msg];
  wait_reqs(s.reqs.data(), static_cast<int>(s.reqs.size()), mpi_timeout(), [&] {
    return fmt::format("rank {} waited {} s for the message from rank {} in step {} (rank {} is dead or hung)", me_,
                       mpi_timeout(), plan_.src[msg], plan_.step[msg], plan_.src[msg]);
  });
  if (window_) return shm_arrived(msg);
  return s.staged ? s.staging.data() : nullptr;
}
int64_t MpiTransport::wait_sent(int, int64_t msg) {
  Slot& s = slots_[msg];
  wait_reqs(s.reqs.data(), static_cast<int>(s.reqs.size()), mpi_timeout(), [&] {
    return fmt::format("rank {} waited {} s for rank {} to receive its message of step {} (rank {} is dead or hung)",
                       me_, mpi_timeout(), plan_.dst[msg], plan_.step[msg], plan_.dst[msg]);
  });
  // Window: the reader's loads (ordered before its 0-byte answer by its
  // MPI_Win_sync) come before this rank's next stores into the buffer.
  if (window_) MPI_Win_sync(window_->win());
  return now_ns();
}
int64_t MpiTransport::barrier_at(int step, const std::function<void(int)>* on_step) {
  int n;
  MPI_Comm_size(g_comm, &n);
  return root_barrier(me_, n, "barrier", step, on_step);
}

}  // namespace microddp::mpi_detail
