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

void SnapshotStreams::begin(const sim::World& world) {
  tick_ = world.tick();
  state_hash_ = world.state_hash();
  const std::int32_t n = world.size();
  order_.resize(static_cast<std::size_t>(n));
  std::iota(order_.begin(), order_.end(), 0);
  // The codec walks agents in id order (baseline and view merge by id): sort once per snapshot.
  std::sort(order_.begin(), order_.end(),
            [&](std::int32_t a, std::int32_t b) { return world.view(a).id.value < world.view(b).id.value; });
  sample_.agents.resize(order_.size());
  sample_.x.resize(order_.size());
  sample_.y.resize(order_.size());
  sample_.speed.resize(order_.size());
  for (std::size_t k = 0; k < order_.size(); ++k) {
    const sim::AgentView v = world.view(order_[k]);
    sample_.agents[k] = codec::quantize(v, geometry_);
    sample_.x[k] = v.position.x;
    sample_.y[k] = v.position.y;
    sample_.speed[k] = math::length(v.velocity);
  }
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
