#include "game/snapshot_streams.hpp"

#include <algorithm>
#include <numeric>

#include "codec/server_codec.hpp"

namespace flockstep::server::game {

SnapshotStreams::SnapshotStreams(const sim::Scenario& scenario, StreamConfig config)
    : geometry_(codec::WireGeometry::of(scenario)), config_(config) {
  sample_.width = scenario.width;
  sample_.height = scenario.height;
  sample_.wrap = scenario.wrap;
}

void SnapshotStreams::add(ConnectionId conn) { clients_[conn] = Client{}; }

void SnapshotStreams::remove(ConnectionId conn) { clients_.erase(conn); }

void SnapshotStreams::ack(ConnectionId conn, std::uint64_t tick, const codec::ViewRect* view) {
  auto it = clients_.find(conn);
  if (it == clients_.end()) return;
  Client& c = it->second;
  if (view) {
    c.has_view = true;
    c.view = *view;
  }
  if (tick == 0) {
    c.acked = 0;  // the client lost its frames: next one is full
    return;
  }
  if (tick <= c.acked) return;  // late or repeated ack
  bool sent = false;
  for (const Sent& s : c.history) sent = sent || (s.frame && s.tick == tick);
  if (!sent) return;  // never sent (or already forgotten): keep the older baseline
  c.acked = tick;
  // Frames older than the acknowledged one can never be a baseline again: free them now.
  for (Sent& s : c.history)
    if (s.frame && s.tick < tick) s = Sent{};
}

const codec::ViewFrame* SnapshotStreams::baseline(const Client& c) const {
  if (c.acked == 0) return nullptr;
  for (const Sent& s : c.history)
    if (s.frame && s.tick == c.acked) return s.frame.get();
  return nullptr;  // overwritten: more than kHistory snapshots unacknowledged
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
  WorldSample* sample;
};

/// One chunk of the sampling: writes only its own range of the sample.
void sample_chunk(void* arg, std::int32_t task) {
  const SampleJob& job = *static_cast<const SampleJob*>(arg);
  const std::size_t begin = static_cast<std::size_t>(task) * kSampleChunk;
  const std::size_t end = std::min(job.order->size(), begin + kSampleChunk);
  WorldSample& s = *job.sample;
  for (std::size_t k = begin; k < end; ++k) {
    const sim::AgentView v = job.world->view((*job.order)[k].second);
    s.agents[k] = codec::quantize(v, *job.geometry);
    s.x[k] = v.position.x;
    s.y[k] = v.position.y;
    s.speed[k] = math::length(v.velocity);
  }
}

}  // namespace

void SnapshotStreams::begin(const sim::World& world, std::uint64_t state_hash) {
  tick_ = world.tick();
  state_hash_ = state_hash;
  const std::int32_t n = world.size();
  // The codec walks agents in id order (baseline and view merge by id). Dense order usually is
  // id order already (agents are spawned in slot order and rarely removed), so check first.
  order_.resize(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) order_[static_cast<std::size_t>(i)] = {world.id_at(i).value, i};
  if (!std::is_sorted(order_.begin(), order_.end())) std::sort(order_.begin(), order_.end());
  sample_.agents.resize(order_.size());
  sample_.x.resize(order_.size());
  sample_.y.resize(order_.size());
  sample_.speed.resize(order_.size());
  SampleJob job{&world, &geometry_, &order_, &sample_};
  const auto tasks = static_cast<std::int32_t>((order_.size() + kSampleChunk - 1) / kSampleChunk);
  world.task_runner().run_batch(tasks, &sample_chunk, &job);
  sample_.build_index();
  cache_.clear();
}

std::shared_ptr<const std::string> SnapshotStreams::encode_for(ConnectionId conn, const Area* player_area) {
  auto it = clients_.find(conn);
  if (it == clients_.end()) return nullptr;
  Client& c = it->second;
  Area area;
  if (player_area) {
    area = *player_area;
  } else if (c.has_view) {
    area.kind = Area::Kind::kRect;
    area.rect = c.view;
    area.players_always = true;
  }
  const codec::ViewFrame* base = baseline(c);
  const ShareKey key{static_cast<std::uint8_t>(area.kind), area.cx, area.cy, area.radius, area.rect.min_x,
                     area.rect.min_y, area.rect.max_x, area.rect.max_y, area.always_id, area.players_always, base};
  Shared out;
  if (auto hit = cache_.find(key); hit != cache_.end()) {
    out = hit->second;
    ++stats_.shared;
  } else {
    select_visible(sample_, area, base, config_.interest, visible_, weight_);
    codec::EncodeInput in;
    in.tick = tick_;
    in.base = base;
    in.visible = visible_;
    in.weight = weight_;
    in.budget_bytes = config_.budget_bytes;
    auto frame = std::make_shared<codec::ViewFrame>();
    codec::encode_agents(in, geometry_, bits_, *frame, &stats_.last);
    std::string body;
    codec::encode_delta_body(tick_, base ? base->tick : 0, state_hash_, bits_,
                             static_cast<std::uint32_t>(frame->agents.size()), body);
    out.body = std::make_shared<const std::string>(std::move(body));
    out.frame = std::move(frame);
    ++stats_.encodes;
    stats_.full += base ? 0 : 1;
    stats_.body_bytes += out.body->size();
    // Players' areas are their own; only spectators' bodies can be reused.
    if (!player_area) cache_.emplace(key, out);
  }
  // A free slot, else the oldest frame (if that was the acknowledged one, the baseline is gone:
  // kHistory snapshots went unacknowledged, and the next snapshot is a full one).
  Sent* slot = &c.history[0];
  for (Sent& s : c.history) {
    if (!s.frame) {
      slot = &s;
      break;
    }
    if (s.tick < slot->tick) slot = &s;
  }
  *slot = Sent{tick_, out.frame};
  return out.body;
}

void SnapshotStreams::end() { cache_.clear(); }

}  // namespace flockstep::server::game
