// Static files: traversal in every spelling is refused, MIME types are right, symlinks cannot
// escape the root.
#include <gtest/gtest.h>

#include <filesystem>

#include "../test_util.hpp"
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

TEST(StaticFilesMime, TypesIncludeWasm) {
  EXPECT_EQ(mime_type("/a/viewer.wasm"), "application/wasm");
  EXPECT_EQ(mime_type("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(mime_type("viewer.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(mime_type("style.css"), "text/css; charset=utf-8");
  EXPECT_EQ(mime_type("x.json"), "application/json");
  EXPECT_EQ(mime_type("blob"), "application/octet-stream");
}

}  // namespace
}  // namespace flockstep::server::net
