#include "net/http_session.hpp"

#include <chrono>
#include <optional>

#include <boost/asio/dispatch.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

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
constexpr std::uint64_t kBodyLimit = 1024;

template <class Body>
void common_headers(http::response<Body>& res) {
  res.set(http::field::server, "flockstep");
  res.set("X-Content-Type-Options", "nosniff");
}

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

/// Build the response to one plain HTTP request (never an upgrade).
http::message_generator handle_request(const http::request<http::string_body>& req, ServerContext& ctx) {
  ctx.metrics.http_requests.inc();
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    auto res = text_response(req, http::status::method_not_allowed, "only GET and HEAD\n");
    return res;
  }
  const std::string_view target(req.target().data(), req.target().size());
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/healthz") return text_response(req, http::status::ok, "ok\n");
  if (path == "/readyz") {
    const bool ready = ctx.ready.load() && !ctx.shutting_down.load();
    return text_response(req, ready ? http::status::ok : http::status::service_unavailable, ready ? "ready\n" : "not ready\n");
  }
  if (path == "/metrics")
    return text_response(req, http::status::ok, ctx.registry.render(), "text/plain; version=0.0.4; charset=utf-8");
  if (path == "/ws") return text_response(req, http::status::upgrade_required, "WebSocket upgrade required\n");

  std::string file;
  switch (resolve_static_path(ctx.config.web_root, target, file)) {
    case ResolveStatus::kOk: break;
    case ResolveStatus::kBadRequest:
      ctx.metrics.http_bad_request.inc();
      return text_response(req, http::status::bad_request, "bad request target\n");
    case ResolveStatus::kForbidden:
      ctx.metrics.http_forbidden.inc();
      ctx.log.warn("http_forbidden", {{"target", target.substr(0, 200)}});
      return text_response(req, http::status::forbidden, "forbidden\n");
    case ResolveStatus::kNotFound:
      ctx.metrics.http_not_found.inc();
      return text_response(req, http::status::not_found, "not found\n");
  }
  beast::error_code ec;
  http::file_body::value_type body;
  body.open(file.c_str(), beast::file_mode::scan, ec);
  if (ec) {
    ctx.metrics.http_not_found.inc();
    return text_response(req, http::status::not_found, "not found\n");
  }
  const auto size = body.size();
  const std::string_view mime = mime_type(file);
  if (req.method() == http::verb::head) {
    http::response<http::empty_body> res{http::status::ok, req.version()};
    res.set(http::field::server, "flockstep");
    res.set("X-Content-Type-Options", "nosniff");
    res.set(http::field::content_type, mime);
    res.content_length(size);
    res.keep_alive(req.keep_alive());
    return res;
  }
  http::response<http::file_body> res{std::piecewise_construct, std::make_tuple(std::move(body)),
                                      std::make_tuple(http::status::ok, req.version())};
  common_headers(res);
  res.set(http::field::content_type, mime);
  res.set(http::field::cache_control, "no-cache");
  res.content_length(size);
  res.keep_alive(req.keep_alive());
  return res;
}

/// One HTTP connection: read a request, answer it, repeat while keep-alive; or upgrade.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket&& socket, ServerContext& ctx, ConnectionGuard guard)
      : stream_(std::move(socket)), ctx_(ctx), guard_(std::move(guard)) {}

  // run: start on the connection's strand.
  void run() {
    asio::dispatch(stream_.get_executor(), beast::bind_front_handler(&HttpSession::do_read, shared_from_this()));
  }

 private:
  // do_read: read one request header + (tiny) body, within the handshake timeout.
  void do_read() {
    parser_.emplace();
    parser_->header_limit(ctx_.config.max_http_header_bytes);
    parser_->body_limit(kBodyLimit);
    stream_.expires_after(std::chrono::milliseconds(ctx_.config.handshake_timeout_ms));
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&HttpSession::on_read, shared_from_this()));
  }

  // on_read: upgrade on /ws, otherwise answer.
  void on_read(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream) return do_close();
    if (ec) return fail(ec, "http_read");
    auto& req = parser_->get();
    if (beast::websocket::is_upgrade(req)) {
      const std::string_view target(req.target().data(), req.target().size());
      if (target.substr(0, target.find('?')) == "/ws" && !ctx_.shutting_down) {
        stream_.expires_never();  // the WebSocket session sets its own timeouts
        start_ws_session(stream_.release_socket(), parser_->release(), ctx_, std::move(guard_));
        return;
      }
      ctx_.metrics.http_not_found.inc();
      return send(text_response(req, ctx_.shutting_down ? http::status::service_unavailable : http::status::not_found,
                                "WebSocket endpoint is /ws\n"));
    }
    send(handle_request(req, ctx_));
  }

  void send(http::message_generator msg) {
    const bool keep_alive = msg.keep_alive();
    beast::async_write(stream_, std::move(msg),
                       [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t n) {
                         self->on_write(keep_alive, ec, n);
                       });
  }

  // on_write: next request, or close when the response said so.
  void on_write(bool keep_alive, beast::error_code ec, std::size_t) {
    if (ec) return fail(ec, "http_write");
    if (!keep_alive || ctx_.shutting_down) return do_close();
    do_read();
  }

  void do_close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
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
};

}  // namespace

void start_http_session(tcp::socket&& socket, ServerContext& ctx, ConnectionGuard guard) {
  std::make_shared<HttpSession>(std::move(socket), ctx, std::move(guard))->run();
}

}  // namespace flockstep::server::net
