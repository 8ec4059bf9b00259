#include "predict/player_prediction.hpp"

#include <cstring>

#include "flockstep/math/angle.hpp"
#include "flockstep/math/transform.hpp"
#include "flockstep/sim/player.hpp"

namespace flockstep::client {

bool same_bits(const behavior::CraftState& a, const behavior::CraftState& b) {
  const real av[6] = {a.position.x, a.position.y, a.velocity.x, a.velocity.y, a.orientation, a.angular_velocity};
  const real bv[6] = {b.position.x, b.position.y, b.velocity.x, b.velocity.y, b.orientation, b.angular_velocity};
  return std::memcmp(av, bv, sizeof av) == 0;
}

real position_error(const behavior::CraftState& a, const behavior::CraftState& b) {
  return math::length(a.position - b.position);
}

void PlayerPredictor::configure(const sim::Scenario* scenario, real dt) {
  scenario_ = scenario;
  dt_ = dt;
}

void PlayerPredictor::reset() {
  reset_keep_sequence();
  next_sequence_ = 1;
  last_acked_ = 0;
  corrections_ = 0;
}

void PlayerPredictor::reset_keep_sequence() {
  head_ = 0;
  count_ = 0;
  has_state_ = false;
  state_ = {};
}

std::uint32_t PlayerPredictor::advance(sim::PlayerInput input) {
  if (count_ == kCapacity) {  // the server has not acknowledged for seconds: forget the oldest
    head_ = (head_ + 1) % kCapacity;
    --count_;
  }
  InputRecord& r = at(count_);
  ++count_;
  r.sequence = next_sequence_++;
  r.input = input;
  r.predicted = has_state_ && scenario_ != nullptr;
  if (r.predicted) {
    sim::step_player(state_, input, *scenario_, dt_);
    r.after = state_;
  } else {
    r.after = {};
  }
  return r.sequence;
}

ReconcileResult PlayerPredictor::reconcile(const behavior::CraftState& server, ServerProgress at_server) {
  ReconcileResult res;
  res.first = !has_state_;
  // Ticks since the last state in which the server did not apply our next input in sequence.
  // Those after last_applied (held_ticks) can be replayed exactly; any earlier one happened at a
  // point of the chain we cannot know, so that state is rebased on without a comparison.
  const std::uint32_t slipped = at_server.slips - slips_;  // wrapping counter
  const bool chain_exact = has_state_ && slipped == at_server.held_ticks;
  slips_ = at_server.slips;
  res.held = has_state_ && slipped > 0;
  if (res.held) ++held_states_;
  const std::uint32_t last_applied = at_server.last_applied;
  const behavior::CraftState before = state_;

  // Compare with what we predicted for the same input, then drop everything acknowledged.
  while (count_ > 0 && at(0).sequence <= last_applied) {
    const InputRecord& r = at(0);
    if (r.sequence == last_applied && r.predicted && chain_exact && at_server.comparable &&
        at_server.held_ticks <= kMaxHeldTicks) {
      // The server held this input while its queue was dry: step it as often as it did.
      behavior::CraftState expect = r.after;
      for (std::uint32_t k = 0; k < at_server.held_ticks; ++k) sim::step_player(expect, r.input, *scenario_, dt_);
      res.compared = true;
      res.error_m = position_error(expect, server);
      res.corrected = !same_bits(expect, server);
    }
    head_ = (head_ + 1) % kCapacity;
    --count_;
  }
  if (last_applied > last_acked_) last_acked_ = last_applied;
  if (res.corrected) ++corrections_;

  // Rebase on the authoritative state and replay what the server has not applied yet. When the
  // prediction was right this reproduces the same bits; it is cheap (a few craft steps).
  state_ = server;
  has_state_ = scenario_ != nullptr;
  if (has_state_) {
    for (std::int32_t k = 0; k < count_; ++k) {
      InputRecord& r = at(k);
      sim::step_player(state_, r.input, *scenario_, dt_);
      r.after = state_;
      r.predicted = true;
      ++res.replayed;
    }
  }
  if (!res.first) res.jump_m = position_error(before, state_);
  return res;
}

void PlayerPredictor::acknowledge(std::uint32_t last_applied) {
  while (count_ > 0 && at(0).sequence <= last_applied) {
    head_ = (head_ + 1) % kCapacity;
    --count_;
  }
  if (last_applied > last_acked_) last_acked_ = last_applied;
}

std::int32_t PlayerPredictor::unacked(std::span<InputRecord> out) const {
  const std::int32_t n =
      count_ < static_cast<std::int32_t>(out.size()) ? count_ : static_cast<std::int32_t>(out.size());
  const std::int32_t skip = count_ - n;  // keep the newest
  for (std::int32_t k = 0; k < n; ++k) out[static_cast<std::size_t>(k)] = at(skip + k);
  return n;
}

}  // namespace flockstep::client
