#include "net/http_session.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <optional>

#include <boost/asio/dispatch.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <nlohmann/json.hpp>

#include "net/access.hpp"
#include "net/admin_limiter.hpp"
#include "net/client_address.hpp"
#include "game/published_rooms.hpp"
#include "net/lobby_api.hpp"
#include "net/publish_api.hpp"
#include "net/static_files.hpp"
#include "net/ws_session.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"

namespace flockstep::server::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

/// Requests carry no body (GET/HEAD); anything bigger than this is refused by the parser.
/// Admin POSTs (live tuning) may carry up to kAdminBodyLimit (lobby_api.hpp).
constexpr std::uint64_t kBodyLimit = 1024;
/// Deadline for writing one response.
constexpr std::chrono::seconds kWriteTimeout{60};
/// After answering a request that was not read to its end (413, 431) and shutting down our
/// side, the rest of what the client sends is read and dropped for at most this long, so the
/// kernel does not answer the unread bytes with a reset that could destroy the response before
/// the client reads it (the "lingering close" of RFC 9112 section 9.6).
constexpr std::chrono::seconds kLingerTimeout{2};
/// Bytes read and dropped during that lingering close; a client sending more is cut off.
constexpr std::size_t kLingerBytes = 1 << 20;

/// The viewer's pages may run only their own scripts and WebAssembly ('wasm-unsafe-eval' lets
/// the page compile its .wasm and nothing else), load only their own files, talk only to their
/// own server (ws:/wss: for the ?server= override of the viewer), and never be framed. Inline
/// styles stay allowed: the overlay sets colour swatches with style attributes.
constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'";

/// Headers every response carries (page hygiene: docs/security.md): no content sniffing, the
/// policy above, no framing for older browsers, and no Referer leaking a page's query (the
/// viewer's ?server= and room names) to anybody.
template <class Body>
void common_headers(http::response<Body>& res) {
  res.set(http::field::server, "flockstep");
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Content-Security-Policy", kContentSecurityPolicy);
  res.set("X-Frame-Options", "DENY");
  res.set("Referrer-Policy", "no-referrer");
}

/// Who sent a request: the client address (after trusted proxies) and the key per-address
/// limits count it by (client_address.hpp).
struct Client {
  std::string address;
  std::string key;
};

http::message_generator text_response(const http::request<http::string_body>& req, http::status status,
                                      std::string body, std::string_view type = "text/plain; charset=utf-8") {
  http::response<http::string_body> res{status, req.version()};
  common_headers(res);
  res.set(http::field::content_type, type);
  res.set(http::field::cache_control, "no-store");
  res.keep_alive(req.keep_alive());
  if (req.method() == http::verb::head) {
    res.content_length(body.size());
  } else {
    res.body() = std::move(body);
    res.prepare_payload();
  }
  return res;
}

std::string_view view_of(beast::string_view s) { return {s.data(), s.size()}; }

/// The value of query parameter `name` in `target` ("" when absent).
std::string_view query_param(std::string_view target, std::string_view name) {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return {};
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view item = rest.substr(0, amp);
    if (item.size() > name.size() && item.substr(0, name.size()) == name && item[name.size()] == '=')
      return item.substr(name.size() + 1);
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return {};
}

http::message_generator json_response(const http::request<http::string_body>& req, http::status status,
                                      const nlohmann::json& j) {
  // Names are validated UTF-8 already; `replace` keeps a bad byte from ever throwing here.
  return text_response(req, status, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                       "application/json");
}

http::message_generator api_response(const http::request<http::string_body>& req, const ApiResponse& r) {
  http::response<http::string_body> res{static_cast<http::status>(r.status), req.version()};
  common_headers(res);
  res.set(http::field::content_type, "application/json");
  res.set(http::field::cache_control, "no-store");
  res.keep_alive(req.keep_alive());
  res.body() = r.body;
  res.prepare_payload();
  return res;
}

/// The admin API (/api/admin/...): every route goes through check_admin() first, so an
/// unauthenticated caller learns nothing, not even which routes exist.
///   GET  /api/admin/clients         live WebSocket sessions: conn, remote, role, name
///   POST /api/admin/kick?conn=ID    close that session (ServerMessage.close + close 1000)
///   POST /api/admin/rooms/<name>/groups/<index>   live tuning (lobby_api.hpp)
///   POST /api/admin/rooms/<name>/recording/start|stop, GET /api/admin/recordings[/<file>]
///                                                 input-log recordings (lobby_api.hpp)
///   GET /api/admin/published, PUT|DELETE /api/admin/published/<name>   publishing (publish_api.hpp)
http::message_generator handle_admin(const http::request<http::string_body>& req, std::string_view path,
                                     std::string_view target, ServerContext& ctx, const Client& who) {
  const std::string& client = who.address;
  if (ctx.config.admin_token.empty()) {  // the admin API does not exist
    ctx.metrics.http_not_found.inc();
    return text_response(req, http::status::not_found, "not found\n");
  }
  // An address that failed too often gets 429 for the rest of its window, right token or not.
  const auto now = AdminLimiter::Clock::now();
  if (ctx.admin_failures.limited(who.key, now)) {
    ctx.metrics.admin_auth_limited.inc();
    ctx.log.warn("admin_rate_limited", {{"path", path.substr(0, 100)},
                                        {"address", client},
                                        {"limit", kAdminFailuresPerWindow},
                                        {"window_s", static_cast<std::uint64_t>(kAdminFailureWindow.count())}});
    http::response<http::string_body> res{http::status::too_many_requests, req.version()};
    common_headers(res);
    res.set(http::field::retry_after, std::to_string(kAdminFailureWindow.count()));
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    res.set(http::field::cache_control, "no-store");
    res.keep_alive(false);
    res.body() = "too many failed admin attempts from this address\n";
    res.prepare_payload();
    return res;
  }
  switch (check_admin(view_of(req[http::field::authorization]), ctx.config.admin_token)) {
    case AdminAuth::kAllowed: break;
    case AdminAuth::kDisabled:
      ctx.metrics.http_not_found.inc();
      return text_response(req, http::status::not_found, "not found\n");
    case AdminAuth::kDenied: {
      ctx.admin_failures.failed(who.key, now);
      ctx.metrics.admin_auth_failed.inc();
      ctx.log.warn("admin_denied", {{"path", path.substr(0, 100)}, {"address", client}});
      http::response<http::string_body> res{http::status::unauthorized, req.version()};
      common_headers(res);
      res.set(http::field::www_authenticate, "Bearer realm=\"flockstep-admin\"");
      res.set(http::field::content_type, "text/plain; charset=utf-8");
      res.set(http::field::cache_control, "no-store");
      res.keep_alive(req.keep_alive());
      res.body() = "admin token required\n";
      res.prepare_payload();
      return res;
    }
  }
  if (path == "/api/admin/clients") {
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return text_response(req, http::status::method_not_allowed, "use GET\n");
    nlohmann::json clients = nlohmann::json::array();
    for (const auto& [id, info] : ctx.sessions.list())
      clients.push_back({{"conn", id},
                         {"remote", info.remote},
                         {"address", info.address},
                         {"role", info.role},
                         {"name", info.name},
                         {"queued_messages", info.send_queue.messages},
                         {"queued_bytes", info.send_queue.bytes},
                         {"queued_peak_bytes", info.send_queue.peak_bytes}});
    return json_response(req, http::status::ok,
                         {{"connections", ctx.open_connections.load()}, {"clients", std::move(clients)}});
  }
  if (path == "/api/admin/kick") {
    if (req.method() != http::verb::post) return text_response(req, http::status::method_not_allowed, "use POST\n");
    const std::string_view text = query_param(target, "conn");
    game::ConnectionId id = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
      return text_response(req, http::status::bad_request, "need ?conn=<connection id> (see /api/admin/clients)\n");
    if (!ctx.sessions.close_one(id, game::CloseReason::kNormal, "kicked by an administrator"))
      return json_response(req, http::status::not_found, {{"error", "no such connection"}, {"conn", id}});
    ctx.log.info("admin_kick", {{"conn", id}, {"address", client}});
    return json_response(req, http::status::ok, {{"kicked", id}});
  }
  if (path.substr(0, 17) == "/api/admin/rooms/") {
    std::string_view name, rest;
    if (split_room_path(path.substr(17), name, rest) && rest.substr(0, 7) == "groups/") {
      if (req.method() != http::verb::post) return text_response(req, http::status::method_not_allowed, "use POST\n");
      const ApiResponse r = tune_group(ctx.rooms, name, rest.substr(7), req.body());
      ctx.log.info("admin_tune", {{"room", name.substr(0, 64)},
                                  {"group", rest.substr(7, 16)},
                                  {"status", static_cast<std::uint64_t>(r.status)},
                                  {"address", client}});
      return api_response(req, r);
    }
    if (split_room_path(path.substr(17), name, rest) && rest.substr(0, 10) == "recording/") {
      if (req.method() != http::verb::post) return text_response(req, http::status::method_not_allowed, "use POST\n");
      const ApiResponse r = recording_action(ctx.rooms, name, rest.substr(10));
      ctx.log.info("admin_recording", {{"room", name.substr(0, 64)},
                                       {"action", rest.substr(10, 16)},
                                       {"status", static_cast<std::uint64_t>(r.status)},
                                       {"address", client}});
      return api_response(req, r);
    }
  }
  if (path.substr(0, 20) == "/api/admin/published")  // kPublishedPrefix
    return api_response(req, published_route(ctx.rooms, view_of(req.method_string()), path, req.body()));
  if (path == "/api/admin/recordings") {
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return text_response(req, http::status::method_not_allowed, "use GET\n");
    return api_response(req, recordings_json(ctx.rooms));
  }
  if (path.substr(0, 22) == "/api/admin/recordings/") {
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return text_response(req, http::status::method_not_allowed, "use GET\n");
    std::string bytes;
    const ApiResponse r = recording_file(ctx.rooms, path.substr(22), bytes);
    if (r.status != 200) return api_response(req, r);
    return text_response(req, http::status::ok, std::move(bytes), "application/octet-stream");
  }
  ctx.metrics.http_not_found.inc();
  return text_response(req, http::status::not_found, "no such admin route\n");
}

/// Build the response to one plain HTTP request (never an upgrade).
http::message_generator handle_request(const http::request<http::string_body>& req, ServerContext& ctx,
                                       const Client& who, PortRole role) {
  const std::string& client = who.address;
  ctx.metrics.http_requests.inc();
  if (role == PortRole::kMetrics) {
    // The operator's listener (metrics_port): /metrics and /healthz, nothing else.
    const std::string_view t(req.target().data(), req.target().size());
    const std::string_view p = t.substr(0, t.find('?'));
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return text_response(req, http::status::method_not_allowed, "only GET and HEAD\n");
    if (p == "/metrics")
      return text_response(req, http::status::ok, ctx.registry.render(), "text/plain; version=0.0.4; charset=utf-8");
    if (p == "/healthz") return text_response(req, http::status::ok, "ok\n");
    ctx.metrics.http_not_found.inc();
    return text_response(req, http::status::not_found, "the metrics port serves /metrics and /healthz only\n");
  }
  {
    const std::string_view t(req.target().data(), req.target().size());
    const std::string_view p = t.substr(0, t.find('?'));
    if (p.substr(0, 11) == "/api/admin/") return handle_admin(req, p, t, ctx, who);
  }
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    auto res = text_response(req, http::status::method_not_allowed, "only GET and HEAD\n");
    return res;
  }
  const std::string_view target(req.target().data(), req.target().size());
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/healthz") return text_response(req, http::status::ok, "ok\n");
  if (path == "/readyz") {
    const bool ready = ctx.ready.load() && !ctx.shutting_down.load();
    return text_response(req, ready ? http::status::ok : http::status::service_unavailable,
                         ready ? "ready\n" : "not ready\n");
  }
  if (path == "/metrics") {
    if (!ctx.config.metrics_port.empty()) {  // moved to its own listener: nothing here
      ctx.metrics.http_not_found.inc();
      return text_response(req, http::status::not_found, "not found\n");
    }
    return text_response(req, http::status::ok, ctx.registry.render(), "text/plain; version=0.0.4; charset=utf-8");
  }
  if (path == "/ws") return text_response(req, http::status::upgrade_required, "WebSocket upgrade required\n");
  if (path == "/api/rooms") return api_response(req, rooms_json(ctx.rooms));
  if (path.substr(0, 11) == "/api/rooms/") {
    std::string_view name, rest;
    if (split_room_path(path.substr(11), name, rest) && rest == "scenario")
      return api_response(req, room_scenario_json(ctx.rooms, name,
                                                  ctx.scenario_route_waits.load(std::memory_order_relaxed)
                                                      ? ScenarioSource::kAskGameThread
                                                      : ScenarioSource::kPublished));
  }

  std::string file;
  switch (resolve_static_path(ctx.config.web_root, target, file)) {
    case ResolveStatus::kOk: break;
    case ResolveStatus::kBadRequest:
      ctx.metrics.http_bad_request.inc();
      return text_response(req, http::status::bad_request, "bad request target\n");
    case ResolveStatus::kForbidden:
      ctx.metrics.http_forbidden.inc();
      ctx.log.warn("http_forbidden", {{"target", target.substr(0, 200)}, {"address", client}});
      return text_response(req, http::status::forbidden, "forbidden\n");
    case ResolveStatus::kNotFound:
      ctx.metrics.http_not_found.inc();
      return text_response(req, http::status::not_found, "not found\n");
  }
  // Validators and the precompressed form (client/CMakeLists.txt writes FILE.gz with gzip -9 -n
  // next to the wasm, JavaScript, CSS and HTML): a revalidation costs a 304 without a body, and a
  // browser that accepts gzip gets the .gz bytes with Content-Encoding: gzip.
  FileValidators validators;
  if (!file_validators(file, validators)) {
    ctx.metrics.http_not_found.inc();
    return text_response(req, http::status::not_found, "not found\n");
  }
  const std::string_view mime = mime_type(file);
  const bool varies = precompressed_type(file);
  std::string served = file;
  bool gzip = false;
  if (varies && accepts_gzip(std::string_view(req[http::field::accept_encoding]))) {
    if (std::string gz = gzip_sibling(file); !gz.empty()) {
      FileValidators gz_validators;
      if (file_validators(gz, gz_validators)) {
        served = std::move(gz);
        gzip = true;
        // Another representation, another strong ETag (RFC 9110 section 8.8.3.3).
        validators.etag.insert(validators.etag.size() - 1, "-gz");
        validators.size = gz_validators.size;
      }
    }
  }
  auto cache_headers = [&](auto& res) {
    res.set(http::field::etag, validators.etag);
    res.set(http::field::last_modified, validators.last_modified);
    res.set(http::field::cache_control, "no-cache");  // always revalidate: a rebuilt viewer shows at once
    if (varies) res.set(http::field::vary, "Accept-Encoding");
  };
  if (not_modified(std::string_view(req[http::field::if_none_match]),
                   std::string_view(req[http::field::if_modified_since]), validators)) {
    http::response<http::empty_body> res{http::status::not_modified, req.version()};
    common_headers(res);
    cache_headers(res);
    res.keep_alive(req.keep_alive());
    return res;
  }
  beast::error_code ec;
  http::file_body::value_type body;
  body.open(served.c_str(), beast::file_mode::scan, ec);
  if (ec) {
    ctx.metrics.http_not_found.inc();
    return text_response(req, http::status::not_found, "not found\n");
  }
  const auto size = body.size();
  if (req.method() == http::verb::head) {
    http::response<http::empty_body> res{http::status::ok, req.version()};
    common_headers(res);
    res.set(http::field::content_type, mime);
    if (gzip) res.set(http::field::content_encoding, "gzip");
    cache_headers(res);
    res.content_length(size);
    res.keep_alive(req.keep_alive());
    return res;
  }
  http::response<http::file_body> res{std::piecewise_construct, std::make_tuple(std::move(body)),
                                      std::make_tuple(http::status::ok, req.version())};
  common_headers(res);
  res.set(http::field::content_type, mime);
  if (gzip) res.set(http::field::content_encoding, "gzip");
  cache_headers(res);
  res.content_length(size);
  res.keep_alive(req.keep_alive());
  return res;
}

/// One HTTP connection: read a request, answer it, repeat while keep-alive; or upgrade.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket&& socket, ServerContext& ctx, ConnectionGuard guard, AddressSlot slot, PortRole role)
      : stream_(std::move(socket)), ctx_(ctx), guard_(std::move(guard)), slot_(std::move(slot)), role_(role) {
    beast::error_code ec;
    const tcp::endpoint peer = stream_.socket().remote_endpoint(ec);
    peer_ = config::unmapped(peer.address());
    peer_address_ = peer_.to_string();
    remote_ = peer_address_ + ":" + std::to_string(peer.port());
  }

  // run: start on the connection's strand.
  void run() {
    asio::dispatch(stream_.get_executor(), beast::bind_front_handler(&HttpSession::do_read, shared_from_this()));
  }

 private:
  // do_read: read one request header, within the handshake timeout.
  void do_read() {
    parser_.emplace();
    parser_->header_limit(ctx_.config.max_http_header_bytes);
    // Beast checks Content-Length against the limit while parsing the header, so the larger
    // admin limit is set first and lowered in on_header for every other request.
    parser_->body_limit(std::max(kAdminBodyLimit, game::kPublishBodyLimit));
    stream_.expires_after(std::chrono::milliseconds(ctx_.config.handshake_timeout_ms));
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&HttpSession::on_header, shared_from_this()));
  }

  // on_header: admin POSTs may carry a larger body (live tuning); then read the body.
  void on_header(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream) return do_close();
    if (ec == http::error::body_limit) {  // Content-Length over the admin limit
      ctx_.metrics.http_bad_request.inc();
      parser_->get().keep_alive(false);
      linger_ = true;
      return send(text_response(parser_->get(), http::status::payload_too_large, "request body too large\n"));
    }
    if (ec == http::error::header_limit) {
      // The header is incomplete, so there is no request to answer in kind: a plain HTTP/1.1
      // response, then close (what follows on the connection cannot be framed any more).
      ctx_.metrics.http_bad_request.inc();
      ctx_.log.warn("http_header_too_large",
                    {{"address", peer_address_}, {"limit", ctx_.config.max_http_header_bytes}});
      http::request<http::string_body> req{http::verb::get, "/", 11};
      req.keep_alive(false);
      linger_ = true;
      return send(text_response(
          req, http::status::request_header_fields_too_large,
          "request header too large (limit " + std::to_string(ctx_.config.max_http_header_bytes) + " bytes)\n"));
    }
    if (ec) return fail(ec, "http_read");
    auto& h = parser_->get();
    const std::string_view target(h.target().data(), h.target().size());
    const bool admin_post = h.method() == http::verb::post && target.substr(0, 11) == "/api/admin/";
    const bool publish_put = h.method() == http::verb::put &&
                             target.substr(0, kPublishedPrefix.size() + 1) == std::string(kPublishedPrefix) + "/";
    if (!publish_put) {
      const std::uint64_t limit = admin_post ? kAdminBodyLimit : kBodyLimit;
      const auto length = parser_->content_length();
      if (length && *length > limit) {
        ctx_.metrics.http_bad_request.inc();
        h.keep_alive(false);
        linger_ = true;
        return send(text_response(h, http::status::payload_too_large, "request body too large\n"));
      }
      parser_->body_limit(limit);  // chunked bodies are checked as they arrive
    }
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&HttpSession::on_read, shared_from_this()));
  }

  // on_read: upgrade on /ws, otherwise answer.
  void on_read(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream) return do_close();
    if (ec) return fail(ec, "http_read");
    auto& req = parser_->get();
    const Client who = client_of(req);
    const std::string& client = who.address;
    // A trusted proxy's connection is counted for the client its header names, per request
    // (the proxy may reuse one connection for several clients); other connections were counted
    // by the listener already and keep their key.
    if (slot_.address() != who.key) {
      if (!ctx_.sessions_per_address.acquire(who.key, ctx_.config.max_sessions_per_address)) {
        ctx_.metrics.address_limit_refused.inc();
        ctx_.log.warn("address_limit", {{"address", client}, {"limit", ctx_.config.max_sessions_per_address}});
        req.keep_alive(false);
        return send(text_response(req, http::status::too_many_requests, "too many connections from this address\n"));
      }
      slot_ = AddressSlot(&ctx_.sessions_per_address, who.key);
    }
    if (beast::websocket::is_upgrade(req) && role_ == PortRole::kMetrics) {
      ctx_.metrics.http_not_found.inc();
      return send(text_response(req, http::status::not_found, "no WebSocket on the metrics port\n"));
    }
    if (beast::websocket::is_upgrade(req)) {
      const std::string_view target(req.target().data(), req.target().size());
      const std::string_view path = target.substr(0, target.find('?'));
      const bool echo = path == "/echo" && ctx_.config.echo_endpoint == "on";
      if ((path == "/ws" || echo) && !ctx_.shutting_down) {
        // A browser page from a foreign site must not drive a player (cross-site WebSocket
        // hijacking): refused before the upgrade.
        const std::string_view origin = view_of(req[http::field::origin]);
        if (!origin_allowed(origin, ctx_.config.allowed_origins, view_of(req[http::field::host]))) {
          ctx_.metrics.http_forbidden.inc();
          ctx_.log.warn("origin_refused", {{"origin", origin.substr(0, 200)}, {"address", client}});
          return send(text_response(req, http::status::forbidden, "origin not allowed\n"));
        }
        if (echo) {
          stream_.expires_never();  // the WebSocket session sets its own timeouts
          start_echo_session(stream_.release_socket(), parser_->release(), ctx_, std::move(guard_));
          return;
        }
        stream_.expires_never();  // the WebSocket session sets its own timeouts
        // The connection's per-address count moves on with it.
        start_ws_session(stream_.release_socket(), parser_->release(), ctx_, std::move(guard_),
                         ClientIdentity{remote_, std::move(slot_), client});
        return;
      }
      ctx_.metrics.http_not_found.inc();
      return send(text_response(req, ctx_.shutting_down ? http::status::service_unavailable : http::status::not_found,
                                "WebSocket endpoint is /ws\n"));
    }
    send(handle_request(req, ctx_, who, role_));
  }

  void send(http::message_generator msg) {
    const bool keep_alive = msg.keep_alive();
    // Writing may take longer than reading a request (a multi-megabyte .wasm to a slow client):
    // its own, generous deadline.
    stream_.expires_after(kWriteTimeout);
    beast::async_write(stream_, std::move(msg),
                       [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t n) {
                         self->on_write(keep_alive, ec, n);
                       });
  }

  // on_write: next request, or close when the response said so.
  void on_write(bool keep_alive, beast::error_code ec, std::size_t) {
    if (ec) return fail(ec, "http_write");
    if (linger_) {
      do_close();
      stream_.expires_after(kLingerTimeout);
      return do_linger(0);
    }
    if (!keep_alive || ctx_.shutting_down) return do_close();
    do_read();
  }

  // client_of: the client for this request (client_address.hpp): the TCP peer unless it is a
  // trusted proxy that names someone in the ONE header forwarded_header configures.
  Client client_of(const http::request<http::string_body>& req) const {
    if (!ctx_.trusted_proxies.contains(peer_)) return {peer_address_, address_key(peer_)};
    const ForwardedHeader header = forwarded_header_of(ctx_.config.forwarded_header);
    std::vector<std::string_view> lines;
    for (auto [it, end] = req.equal_range(header == ForwardedHeader::kForwarded ? "Forwarded" : "X-Forwarded-For");
         it != end; ++it)
      lines.push_back(view_of(it->value()));
    const auto client = client_address(ctx_.trusted_proxies, peer_, forwarded_hops(header, lines));
    return {client.to_string(), address_key(client)};
  }

  void do_close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  // do_linger: read and drop until the client closes, kLingerBytes or kLingerTimeout.
  void do_linger(std::size_t dropped) {
    if (dropped >= kLingerBytes) return;
    stream_.async_read_some(asio::buffer(linger_buffer_),
                            [self = shared_from_this(), dropped](beast::error_code ec, std::size_t n) {
                              if (!ec) self->do_linger(dropped + n);
                            });
  }

  // fail: one place for errors; aborted operations and timeouts of idle keep-alive are normal.
  void fail(beast::error_code ec, const char* what) {
    if (ec == asio::error::operation_aborted || ec == beast::error::timeout || ec == asio::error::eof ||
        ec == asio::error::connection_reset)
      return;
    ctx_.log.debug("http_error", {{"op", what}, {"error", ec.message()}});
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  ServerContext& ctx_;
  ConnectionGuard guard_;
  AddressSlot slot_;               // this connection's count for its client's address key (max_sessions_per_address)
  PortRole role_;                  // game port or metrics port
  boost::asio::ip::address peer_;  // TCP peer (IPv4-mapped IPv6 as IPv4)
  std::string peer_address_;       // peer_ as text
  std::string remote_;             // peer address:port
  bool linger_ = false;            // the request was not read to its end: lingering close after the answer
  std::array<char, 4096> linger_buffer_{};
};

}  // namespace

void start_http_session(tcp::socket&& socket, ServerContext& ctx, ConnectionGuard guard, AddressSlot slot,
                        PortRole role) {
  std::make_shared<HttpSession>(std::move(socket), ctx, std::move(guard), std::move(slot), role)->run();
}

}  // namespace flockstep::server::net
