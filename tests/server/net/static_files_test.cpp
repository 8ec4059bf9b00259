// Static files: traversal in every spelling is refused, MIME types are right, symlinks cannot
// escape the root; over loopback, validators answer revalidation with 304 and a browser that
// accepts gzip gets the precompressed form (which inflates to the same bytes), others the file.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/zlib/inflate_stream.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "../test_util.hpp"
#include "net/server.hpp"
#include "net/static_files.hpp"

namespace flockstep::server::net {
namespace {

class StaticFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("outside/secret.txt", "secret");
    dir_.write("web/index.html", "<html></html>");
    dir_.write("web/viewer.wasm", "\0asm");
    dir_.write("web/js/viewer.js", "1;");
    dir_.write("web/sub/index.html", "sub");
    std::filesystem::create_symlink(dir_.path() / "outside", dir_.path() / "web" / "escape");
    root_ = (dir_.path() / "web").string();
  }
  ResolveStatus resolve(const std::string& target) { return resolve_static_path(root_, target, path_); }

  testing::TempDir dir_;
  std::string root_;
  std::string path_;
};

TEST_F(StaticFiles, ServesFilesAndIndexes) {
  ASSERT_EQ(resolve("/"), ResolveStatus::kOk);
  EXPECT_EQ(std::filesystem::path(path_).filename(), "index.html");
  ASSERT_EQ(resolve("/sub/"), ResolveStatus::kOk);
  EXPECT_NE(path_.find("sub"), std::string::npos);
  EXPECT_EQ(resolve("/js/viewer.js?v=3#x"), ResolveStatus::kOk);
  EXPECT_EQ(resolve("/js/%76iewer.js"), ResolveStatus::kOk);  // percent-encoded ordinary letter
  EXPECT_EQ(resolve("/viewer.wasm"), ResolveStatus::kOk);
  EXPECT_EQ(resolve("/nope.js"), ResolveStatus::kNotFound);
  EXPECT_EQ(resolve("/js"), ResolveStatus::kNotFound);  // a directory is not a file
}

TEST_F(StaticFiles, RefusesDotDotInEverySpelling) {
  for (const char* t : {"/../outside/secret.txt", "/js/../../outside/secret.txt", "/..", "/%2e%2e/outside/secret.txt",
                        "/%2E%2E/outside/secret.txt", "/.%2e/outside/secret.txt", "/js/..%2f..%2foutside/secret.txt",
                        "/js/%2e%2e%2f%2e%2e%2foutside%2fsecret.txt", "/./index.html", "/js//viewer.js",
                        "/..\\outside\\secret.txt", "/js%5c..%5c..%5coutside/secret.txt"})
    EXPECT_EQ(resolve(t), ResolveStatus::kForbidden) << t;
}

TEST_F(StaticFiles, DoubleEncodingIsDecodedOnceOnly) {
  // "%252e%252e" decodes to the literal name "%2e%2e", which does not exist: never "..".
  EXPECT_EQ(resolve("/%252e%252e/outside/secret.txt"), ResolveStatus::kNotFound);
}

TEST_F(StaticFiles, RefusesSymlinkEscapesAndBadTargets) {
  EXPECT_EQ(resolve("/escape/secret.txt"), ResolveStatus::kForbidden);
  EXPECT_EQ(resolve("/index.html%00.js"), ResolveStatus::kBadRequest);
  EXPECT_EQ(resolve("/bad%zzescape"), ResolveStatus::kBadRequest);
  EXPECT_EQ(resolve("/trailing%2"), ResolveStatus::kBadRequest);
  EXPECT_EQ(resolve("http://example.com/index.html"), ResolveStatus::kBadRequest);
  EXPECT_EQ(resolve(""), ResolveStatus::kBadRequest);
  EXPECT_EQ(resolve_static_path("", "/index.html", path_), ResolveStatus::kNotFound);  // no web root
}

TEST_F(StaticFiles, DotfilesAndDotFoldersAreNotFound) {
  dir_.write("web/.env", "SECRET=1");
  dir_.write("web/.git/config", "[core]");
  dir_.write("web/js/.hidden.js", "1;");
  dir_.write("web/visible.txt", "ok");
  std::filesystem::create_symlink(dir_.path() / "web" / ".env", dir_.path() / "web" / "env-link.txt");
  for (const char* t : {"/.env", "/.git/config", "/js/.hidden.js", "/%2eenv", "/.git/", "/env-link.txt"})
    EXPECT_EQ(resolve(t), ResolveStatus::kNotFound) << t;
  EXPECT_EQ(resolve("/visible.txt"), ResolveStatus::kOk);  // control: the same folder serves other files
}

TEST(StaticFilesMime, TypesIncludeWasm) {
  EXPECT_EQ(mime_type("/a/viewer.wasm"), "application/wasm");
  EXPECT_EQ(mime_type("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(mime_type("viewer.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(mime_type("style.css"), "text/css; charset=utf-8");
  EXPECT_EQ(mime_type("x.json"), "application/json");
  EXPECT_EQ(mime_type("blob"), "application/octet-stream");
}

TEST(StaticFilesHeaders, ConditionalRequestsAndEncodings) {
  FileValidators v;
  v.etag = "\"10-abc\"";
  v.mtime_s = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT
  v.last_modified = http_date(v.mtime_s);
  EXPECT_EQ(v.last_modified, "Sun, 06 Nov 1994 08:49:37 GMT");
  std::int64_t t = 0;
  ASSERT_TRUE(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", t));
  EXPECT_EQ(t, 784111777);
  EXPECT_FALSE(parse_http_date("yesterday", t));
  EXPECT_TRUE(not_modified("\"10-abc\"", "", v));
  EXPECT_TRUE(not_modified("\"x\", W/\"10-abc\"", "", v));
  EXPECT_TRUE(not_modified("*", "", v));
  EXPECT_FALSE(not_modified("\"10-abd\"", "Sun, 06 Nov 1994 08:49:37 GMT", v));  // If-None-Match decides
  EXPECT_TRUE(not_modified("", "Sun, 06 Nov 1994 08:49:37 GMT", v));
  EXPECT_FALSE(not_modified("", "Sun, 06 Nov 1994 08:49:36 GMT", v));
  EXPECT_FALSE(not_modified("", "", v));
  EXPECT_TRUE(accepts_gzip("gzip, deflate, br"));
  EXPECT_TRUE(accepts_gzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(accepts_gzip("*"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("br, deflate"));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_TRUE(precompressed_type("/w/viewer.wasm"));
  EXPECT_TRUE(precompressed_type("viewer.js"));
  EXPECT_FALSE(precompressed_type("x.png"));
}

namespace http = boost::beast::http;

/// A server on a loopback port 0 serving a web root with viewer.js and its gzip -9 -n form.
class StaticFilesServer : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 400; ++i) js_ += "console.log('flockstep static file line " + std::to_string(i) + "');\n";
    js_path_ = web_.write("viewer.js", js_);
    web_.write("logo.png", "not really a png");
    ASSERT_EQ(std::system(("gzip -9 -n -k -f '" + js_path_ + "'").c_str()), 0) << "gzip must be installed";
    cfg_.host = "127.0.0.1";
    cfg_.port = 0;
    cfg_.web_root = web_.path().string();
    sim::Scenario s;
    s.name = "static";
    s.width = s.height = 50;
    server_ = std::make_unique<Server>(cfg_, s, log_);
    server_->start();
  }
  void TearDown() override {
    server_->shutdown();
    server_->wait();
  }
  /// One GET on a fresh connection with the given extra headers.
  http::response<http::string_body> get(const std::string& target,
                                        std::initializer_list<std::pair<http::field, std::string>> headers = {}) {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket sock(io);
    sock.connect({boost::asio::ip::make_address("127.0.0.1"), server_->port()});
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "127.0.0.1");
    for (const auto& [f, v] : headers) req.set(f, v);
    http::write(sock, req);
    boost::beast::flat_buffer buf;
    http::response_parser<http::string_body> p;
    p.body_limit(1 << 24);
    p.skip(false);
    http::read(sock, buf, p);
    return p.release();
  }

  testing::TempDir web_;
  std::string js_, js_path_;
  config::Config cfg_;
  std::ostringstream log_;
  std::unique_ptr<Server> server_;
};

/// Inflate a gzip member (RFC 1952: 10-byte header without optional fields, as gzip -n writes).
std::string gunzip(const std::string& gz) {
  EXPECT_GE(gz.size(), 18u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  EXPECT_EQ(gz[3], 0) << "no optional header fields (gzip -n)";
  boost::beast::zlib::inflate_stream in;
  in.reset(15);
  std::string out(gz.size() * 40 + 1024, '\0');
  boost::beast::zlib::z_params zs;
  zs.next_in = gz.data() + 10;
  zs.avail_in = gz.size() - 18;
  zs.next_out = out.data();
  zs.avail_out = out.size();
  boost::system::error_code ec;
  in.write(zs, boost::beast::zlib::Flush::sync, ec);
  EXPECT_TRUE(!ec || ec == boost::beast::zlib::error::end_of_stream) << ec.message();
  out.resize(zs.total_out);
  return out;
}

TEST_F(StaticFilesServer, RevalidationGets304WithTheSameValidators) {
  const auto first = get("/viewer.js");
  ASSERT_EQ(first.result(), http::status::ok);
  EXPECT_EQ(first.body(), js_);
  const std::string etag(first[http::field::etag]);
  const std::string last_modified(first[http::field::last_modified]);
  ASSERT_FALSE(etag.empty());
  ASSERT_FALSE(last_modified.empty());
  EXPECT_EQ(first[http::field::vary], "Accept-Encoding");
  const auto again = get("/viewer.js", {{http::field::if_none_match, etag}});
  EXPECT_EQ(again.result(), http::status::not_modified);
  EXPECT_TRUE(again.body().empty());
  EXPECT_EQ(again[http::field::etag], etag);
  const auto by_date = get("/viewer.js", {{http::field::if_modified_since, last_modified}});
  EXPECT_EQ(by_date.result(), http::status::not_modified);
  // A changed file is a new version: the old ETag no longer matches.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::ofstream(js_path_, std::ios::app) << "// changed\n";
  const auto changed = get("/viewer.js", {{http::field::if_none_match, etag}});
  EXPECT_EQ(changed.result(), http::status::ok);
  EXPECT_NE(changed[http::field::etag], etag);
  EXPECT_EQ(changed.body(), js_ + "// changed\n");
  EXPECT_TRUE(changed[http::field::content_encoding].empty()) << "the .gz is older than the file now";
  // Other types are not precompressed and do not vary.
  const auto png = get("/logo.png", {{http::field::accept_encoding, "gzip"}});
  EXPECT_EQ(png.result(), http::status::ok);
  EXPECT_TRUE(png[http::field::vary].empty());
  EXPECT_TRUE(png[http::field::content_encoding].empty());
}

TEST_F(StaticFilesServer, EveryResponseCarriesThePageHygieneHeaders) {
  web_.write(".secret", "do not serve");
  for (const char* target : {"/viewer.js", "/logo.png", "/healthz", "/api/rooms", "/nope", "/.secret"}) {
    SCOPED_TRACE(target);
    const auto r = get(target);
    const std::string csp(r["Content-Security-Policy"]);
    EXPECT_NE(csp.find("script-src 'self' 'wasm-unsafe-eval'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("object-src 'none'"), std::string::npos) << csp;
    EXPECT_EQ(csp.find("unsafe-eval'"), csp.find("wasm-unsafe-eval'") + 5) << "only wasm may be compiled";
    EXPECT_EQ(r["Referrer-Policy"], "no-referrer");
    EXPECT_EQ(r["X-Frame-Options"], "DENY");
    EXPECT_EQ(r["X-Content-Type-Options"], "nosniff");
  }
  EXPECT_EQ(get("/.secret").result(), http::status::not_found);
  const auto again =
      get("/viewer.js", {{http::field::if_none_match, std::string(get("/viewer.js")[http::field::etag])}});
  ASSERT_EQ(again.result(), http::status::not_modified);
  EXPECT_FALSE(again["Content-Security-Policy"].empty()) << "a 304 carries the policy too";
}

TEST_F(StaticFilesServer, GzipOnlyWhenAcceptedAndItInflatesToTheSameBytes) {
  const auto plain = get("/viewer.js");
  EXPECT_TRUE(plain[http::field::content_encoding].empty());
  EXPECT_EQ(plain.body(), js_);
  const auto refused = get("/viewer.js", {{http::field::accept_encoding, "gzip;q=0, br"}});
  EXPECT_TRUE(refused[http::field::content_encoding].empty());
  EXPECT_EQ(refused.body(), js_);
  const auto gz = get("/viewer.js", {{http::field::accept_encoding, "gzip, deflate, br"}});
  ASSERT_EQ(gz.result(), http::status::ok);
  EXPECT_EQ(gz[http::field::content_encoding], "gzip");
  EXPECT_EQ(gz[http::field::vary], "Accept-Encoding");
  EXPECT_EQ(gz[http::field::content_type], "text/javascript; charset=utf-8");
  EXPECT_LT(gz.body().size(), js_.size() / 4);
  EXPECT_EQ(gunzip(gz.body()), js_);
  // Each representation has its own ETag, and revalidates as itself.
  const std::string etag(gz[http::field::etag]);
  EXPECT_NE(etag, std::string(plain[http::field::etag]));
  const auto again = get("/viewer.js", {{http::field::accept_encoding, "gzip"}, {http::field::if_none_match, etag}});
  EXPECT_EQ(again.result(), http::status::not_modified);
  const auto other = get("/viewer.js", {{http::field::if_none_match, etag}});
  EXPECT_EQ(other.result(), http::status::ok);
}

}  // namespace
}  // namespace flockstep::server::net
