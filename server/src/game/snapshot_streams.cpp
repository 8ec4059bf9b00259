#include "game/snapshot_streams.hpp"

#include <algorithm>
#include <numeric>

#include "codec/server_codec.hpp"
#include "net/ws_frame.hpp"

namespace flockstep::server::game {

SnapshotStreams::SnapshotStreams(const sim::Scenario& scenario, StreamConfig config)
    : geometry_(codec::WireGeometry::of(scenario)), config_(config) {
  sample_.width = scenario.width;
  sample_.height = scenario.height;
  sample_.wrap = scenario.wrap;
}

void SnapshotStreams::add(ConnectionId conn, bool delivered_baselines) {
  Client c;
  c.delivered_baselines = delivered_baselines;
  clients_[conn] = c;
}

void SnapshotStreams::remove(ConnectionId conn) { clients_.erase(conn); }

void SnapshotStreams::ack(ConnectionId conn, std::uint64_t tick, const codec::ViewRect* view) {
  auto it = clients_.find(conn);
  if (it == clients_.end()) return;
  Client& c = it->second;
  if (view) {
    c.has_view = true;
    c.view = *view;
  }
  c.acks_seen = true;
  if (tick == 0) {
    c.acked = 0;      // the client lost its frames: next one is full
    c.full_from = 0;  // ... and no frame delivered before it is a baseline
    c.unacked = 0;
    for (const Sent& s : c.history) c.unacked += s.frame ? 1u : 0u;  // all outstanding now
    return;
  }
  if (tick <= c.acked) return;  // late or repeated ack
  bool sent = false;
  for (const Sent& s : c.history) sent = sent || (s.frame && s.tick == tick);
  if (!sent) return;  // never sent (or already forgotten): keep the older baseline
  c.acked = tick;
  // Frames older than the acknowledged one can never be a baseline again: free them now.
  c.unacked = 0;
  for (Sent& s : c.history) {
    if (s.frame && s.tick < tick) s = Sent{};
    if (s.frame && s.tick > tick) ++c.unacked;
  }
}

std::uint32_t SnapshotStreams::unacked_of(ConnectionId conn) const {
  auto it = clients_.find(conn);
  return it == clients_.end() ? 0 : it->second.unacked;
}

const codec::ViewFrame* SnapshotStreams::baseline(const Client& c) const {
  // No acknowledgement (just joined, never acknowledged, or asked for a full one): full. A
  // reader of full snapshots only never acknowledges, so it never gets a delivered baseline. A
  // client that declared delivered baselines gets one once a full snapshot sent since it joined
  // (or sent Ack{0}) was delivered: every snapshot from full_from up to that one was full, and
  // every later one is a delta against a frame delivered before it, so by TCP's order the client
  // decoded each baseline before the delta that names it.
  if (c.acked == 0) {
    if (!c.delivered_baselines || c.full_from == 0 || c.delivered < c.full_from) return nullptr;
    for (const Sent& s : c.history)
      if (s.frame && s.tick == c.delivered) return s.frame.get();
    return nullptr;
  }
  // The delivered frame when newer (file comment), else the acknowledged one, while in the history.
  const codec::ViewFrame* acked = nullptr;
  for (const Sent& s : c.history) {
    if (!s.frame) continue;
    if (s.tick == c.delivered && c.delivered > c.acked) return s.frame.get();
    if (s.tick == c.acked) acked = s.frame.get();
  }
  return acked;  // null: overwritten, more than kHistory snapshots unacknowledged
}

std::uint64_t SnapshotStreams::baseline_of(ConnectionId conn) const {
  auto it = clients_.find(conn);
  if (it == clients_.end()) return 0;
  const codec::ViewFrame* b = baseline(it->second);
  return b ? b->tick : 0;
}

std::size_t SnapshotStreams::history_size(ConnectionId conn) const {
  auto it = clients_.find(conn);
  if (it == clients_.end()) return 0;
  std::size_t n = 0;
  for (const Sent& s : it->second.history) n += s.frame ? 1 : 0;
  return n;
}

namespace {

/// Agents quantised per task when the sampling runs on the world's task runner.
constexpr std::int32_t kSampleChunk = 4096;

struct SampleJob {
  const sim::World* world;
  const codec::WireGeometry* geometry;
  const std::vector<std::pair<std::uint32_t, std::int32_t>>* order;
  SampledRow* rows;  // one per row of the world
  WorldSample* sample;
};

/// Sampling, pass 1: quantises the rows of one chunk in storage order (the world keeps them in
/// cell order, so reading them in id order would miss the cache on every column view() reads).
void sample_rows(void* arg, std::int32_t task) {
  const SampleJob& job = *static_cast<const SampleJob*>(arg);
  const std::int32_t begin = task * kSampleChunk;
  const std::int32_t end = std::min(job.world->size(), begin + kSampleChunk);
  for (std::int32_t i = begin; i < end; ++i) {
    const sim::AgentView v = job.world->view(i);
    job.rows[i] = {codec::quantize(v, *job.geometry), v.position.x, v.position.y, math::length(v.velocity)};
  }
}

/// Sampling, pass 2: the sample in id order, one chunk of it, gathered from pass 1's rows (one
/// compact record per agent instead of the world's many columns).
void sample_in_id_order(void* arg, std::int32_t task) {
  const SampleJob& job = *static_cast<const SampleJob*>(arg);
  const std::size_t begin = static_cast<std::size_t>(task) * kSampleChunk;
  const std::size_t end = std::min(job.order->size(), begin + kSampleChunk);
  WorldSample& s = *job.sample;
  for (std::size_t k = begin; k < end; ++k) {
    const SampledRow& r = job.rows[(*job.order)[k].second];
    s.agents[k] = r.agent;
    s.x[k] = r.x;
    s.y[k] = r.y;
    s.speed[k] = r.speed;
  }
}

}  // namespace

void SnapshotStreams::begin(const sim::World& world, std::uint64_t state_hash) {
  tick_ = world.tick();
  ++snapshot_count_;
  state_hash_ = state_hash;
  const std::int32_t n = world.size();
  // The codec walks agents in id order (baseline and view merge by id), while the world keeps
  // its rows in cell order, which changes every few ticks. The agents themselves rarely change,
  // so the last snapshot's id list is reused with each agent looked up again (in id order, which
  // walks the world's slot table forwards); only when agents joined or left is it sorted again.
  bool same_agents = order_.size() == static_cast<std::size_t>(n);
  for (std::size_t k = 0; same_agents && k < order_.size(); ++k) {
    const std::int32_t i = world.index_of(sim::AgentId{order_[k].first});
    same_agents = i >= 0;
    order_[k].second = i;
  }
  if (!same_agents) {
    ++order_rebuilds_;
    order_.resize(static_cast<std::size_t>(n));
    for (std::int32_t i = 0; i < n; ++i) order_[static_cast<std::size_t>(i)] = {world.id_at(i).value, i};
    std::sort(order_.begin(), order_.end());
  }
  rows_.resize(order_.size());
  sample_.agents.resize(order_.size());
  sample_.x.resize(order_.size());
  sample_.y.resize(order_.size());
  sample_.speed.resize(order_.size());
  SampleJob job{&world, &geometry_, &order_, rows_.data(), &sample_};
  const auto tasks = (n + kSampleChunk - 1) / kSampleChunk;
  world.task_runner().run_batch(tasks, &sample_rows, &job);
  world.task_runner().run_batch(tasks, &sample_in_id_order, &job);
  sample_.build_index();
  end();  // a fresh share cache and no tickets
}

std::int32_t SnapshotStreams::queue(ConnectionId conn, const Area* player_area, std::uint64_t delivered) {
  auto it = clients_.find(conn);
  if (it == clients_.end()) return -1;
  Client& c = it->second;
  c.delivered = std::max(c.delivered, delivered);
  // Pacing: a client with a baseline (it decodes deltas) but max_unacked snapshots outstanding
  // beyond its ack interval waits, but gets one every stalled_every. A client without one that does acknowledge (its
  // acks arrive, but only for frames that already left the history: a join storm, where its
  // first ack comes after more than kHistory snapshots) waits once kUnusableAckOutstanding
  // are outstanding, so the history stops turning over and its next ack finds its frame; without
  // this it would get full snapshots for as long as it lags, the collapse that feeds itself. A
  // client that never acknowledged at all (just joined, or reads only full snapshots) is not
  // paced.
  const bool lagging = c.acked != 0 ? c.unacked >= config_.max_unacked + config_.ack_every - 1
                                    : c.acks_seen && c.unacked >= kUnusableAckOutstanding;
  if (config_.max_unacked > 0 && lagging && snapshot_count_ - c.last_sent < config_.stalled_every) {
    ++stats_.paced;
    return kPaced;
  }
  c.last_sent = snapshot_count_;
  Area area;
  if (player_area) {
    area = *player_area;
  } else if (c.has_view) {
    area.kind = Area::Kind::kRect;
    area.rect = c.view;
    area.players_always = true;
  }
  const codec::ViewFrame* base = baseline(c);
  if (!base && c.full_from == 0) c.full_from = tick_;
  std::int32_t job = -1;
  const ShareKey key{static_cast<std::uint8_t>(area.kind),
                     area.cx,
                     area.cy,
                     area.radius,
                     area.rect.min_x,
                     area.rect.min_y,
                     area.rect.max_x,
                     area.rect.max_y,
                     area.always_id,
                     area.players_always,
                     base};
  // Players' areas are their own; only spectators' bodies can be shared.
  if (!player_area) {
    if (auto hit = cache_.find(key); hit != cache_.end()) job = hit->second;
  }
  if (job < 0) {
    job = job_count_++;
    if (static_cast<std::size_t>(job) == jobs_.size()) jobs_.emplace_back();
    Job& j = jobs_[static_cast<std::size_t>(job)];
    j.area = area;
    j.base = base;
    j.spectators = player_area == nullptr;
    j.out = {};
    j.users = 0;
    if (!player_area) cache_.emplace(key, job);
  }
  Job& j = jobs_[static_cast<std::size_t>(job)];
  tickets_.push_back({&c, job, j.users++ > 0});
  return static_cast<std::int32_t>(tickets_.size()) - 1;
}

void SnapshotStreams::encode_job(void* self, std::int32_t index) {
  auto& st = *static_cast<SnapshotStreams*>(self);
  Job& j = st.jobs_[static_cast<std::size_t>(index)];
  // Reads only the shared sample and this job's own fields: jobs may run on any thread.
  select_visible(st.sample_, j.area, j.base, st.config_.interest, j.visible, j.weight);
  codec::EncodeInput in;
  in.tick = st.tick_;
  in.base = j.base;
  in.visible = j.visible;
  in.weight = j.weight;
  in.budget_bytes = st.config_.budget_bytes;
  auto frame = std::make_shared<codec::ViewFrame>();
  codec::encode_agents(in, st.geometry_, j.bits, *frame, &j.stats);
  std::string body;
  codec::encode_delta_body(st.tick_, j.base ? j.base->tick : 0, st.state_hash_, j.bits,
                           static_cast<std::uint32_t>(frame->agents.size()), body);
  j.out.body = std::make_shared<const std::string>(std::move(body));
  if (j.spectators) j.out.wire = net::make_binary_frame(*j.out.body);
  j.out.frame = std::move(frame);
}

void SnapshotStreams::encode_queued(const sim::TaskRunner& runner) {
  const std::int32_t first = encoded_jobs_;
  // Each distinct body is one task; their order of completion does not matter (each writes only
  // its own job), so the bytes are the same on one thread or many.
  struct Batch {
    SnapshotStreams* self;
    std::int32_t first;
  } batch{this, first};
  // Small worlds encode on this thread: waking the pool's workers for bodies of a few hundred
  // agents cost more CPU than it saved (measured: 1,050 clients on the 290-agent arena, server
  // CPU 16-17 s serial against 19-21 s on the pool over 30 s, tick p99 the same).
  const sim::TaskRunner serial{};
  const sim::TaskRunner& use = sample_.agents.size() >= config_.parallel_encode_min_agents ? runner : serial;
  use.run_batch(
      job_count_ - first,
      [](void* arg, std::int32_t t) {
        auto* b = static_cast<Batch*>(arg);
        encode_job(b->self, b->first + t);
      },
      &batch);
  for (std::int32_t k = first; k < job_count_; ++k) {
    const Job& j = jobs_[static_cast<std::size_t>(k)];
    ++stats_.encodes;
    stats_.full += j.base ? 0 : 1;
    stats_.body_bytes += j.out.body->size();
    stats_.last = j.stats;
  }
  encoded_jobs_ = job_count_;
  // Record each client's new frame, only now: a new frame may take the history slot of a
  // baseline that a job was reading.
  for (std::size_t t = recorded_tickets_; t < tickets_.size(); ++t) {
    const Ticket& tk = tickets_[t];
    const Shared& out = jobs_[static_cast<std::size_t>(tk.job)].out;
    stats_.shared += tk.shared ? 1 : 0;
    // A free slot, else the oldest frame (if that was the acknowledged one, the baseline is
    // gone: kHistory snapshots went unacknowledged, and the next snapshot is a full one).
    Sent* slot = &tk.client->history[0];
    for (Sent& sent : tk.client->history) {
      if (!sent.frame) {
        slot = &sent;
        break;
      }
      if (sent.tick < slot->tick) slot = &sent;
    }
    // The evicted frame was newer than the acknowledged one (else ack() had freed it): one
    // fewer outstanding; the new one is one more.
    if (slot->frame && slot->tick > tk.client->acked) --tk.client->unacked;
    *slot = Sent{tick_, out.frame};
    ++tk.client->unacked;
  }
  recorded_tickets_ = tickets_.size();
}

std::shared_ptr<const std::string> SnapshotStreams::body(std::int32_t ticket) const {
  if (ticket < 0 || static_cast<std::size_t>(ticket) >= recorded_tickets_) return nullptr;
  return jobs_[static_cast<std::size_t>(tickets_[static_cast<std::size_t>(ticket)].job)].out.body;
}

std::shared_ptr<const std::string> SnapshotStreams::wire(std::int32_t ticket) const {
  if (ticket < 0 || static_cast<std::size_t>(ticket) >= recorded_tickets_) return nullptr;
  return jobs_[static_cast<std::size_t>(tickets_[static_cast<std::size_t>(ticket)].job)].out.wire;
}

bool SnapshotStreams::fresh(std::int32_t ticket) const {
  return ticket >= 0 && static_cast<std::size_t>(ticket) < tickets_.size() &&
         !tickets_[static_cast<std::size_t>(ticket)].shared;
}

std::shared_ptr<const std::string> SnapshotStreams::encode_for(ConnectionId conn, const Area* player_area,
                                                               std::uint64_t delivered) {
  const std::int32_t ticket = queue(conn, player_area, delivered);
  if (ticket < 0) return nullptr;
  encode_queued(sim::TaskRunner{});
  return body(ticket);
}

void SnapshotStreams::end() {
  cache_.clear();
  tickets_.clear();
  job_count_ = 0;
  encoded_jobs_ = 0;
  recorded_tickets_ = 0;
}

}  // namespace flockstep::server::game
