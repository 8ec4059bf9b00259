// Hygiene of shared/: the code that runs on the server and in every browser must stay standard-
// library-only and free of libm transcendentals, or native and wasm stop agreeing bit for bit
// (house style sections 2 and 3). This test greps the sources so nobody has to remember.
//
// Runs natively and under node (the wasm tests link with -sNODERAWFS=1, so std::filesystem sees
// the real source tree at FLOCKSTEP_SOURCE_DIR).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#ifndef FLOCKSTEP_SOURCE_DIR
#error "FLOCKSTEP_SOURCE_DIR must name the repository root (tests/CMakeLists.txt defines it)"
#endif

namespace {

namespace fs = std::filesystem;

/// One forbidden construct found in a source text.
struct Offence {
  std::string file;  ///< path relative to the repository root
  int line = 0;      ///< 1-based line number
  std::string what;  ///< which rule, e.g. "libm call atan2(" or "include <random>"
  std::string text;  ///< the offending line, trimmed
};

// Header prefixes shared/ may not include. Matched against the path inside <...> or "...".
constexpr std::array<std::string_view, 8> kForbiddenIncludes = {
    "boost/", "google/protobuf", "nlohmann/", "random", "chrono", "thread", "emscripten/", "emscripten.h"};

// libm transcendentals (each also with an `f` suffix) and the C PRNG. sqrt/floor/abs are exact
// and allowed; these are not correctly rounded and differ between glibc and wasm's musl.
constexpr std::array<std::string_view, 14> kForbiddenCalls = {"sin", "cos", "tan", "atan",  "atan2", "asin", "acos",
                                                              "exp", "pow", "log", "hypot", "fmod",  "rand", "srand"};

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) {
    return {};
  }
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool is_forbidden_call_name(std::string_view ident) {
  for (std::string_view name : kForbiddenCalls) {
    if (ident == name) {
      return true;
    }
    // sinf, atan2f, powf ... (but not randf/srandf, which are not libm names anyway)
    if (name != "rand" && name != "srand" && ident.size() == name.size() + 1 && ident.substr(0, name.size()) == name &&
        ident.back() == 'f') {
      return true;
    }
  }
  return false;
}

/// The include target of a preprocessor line (`#  include <x/y.h>` -> "x/y.h"), or empty.
std::string_view include_target(std::string_view line) {
  if (line.empty() || line.front() != '#') {
    return {};
  }
  line = trim(line.substr(1));
  constexpr std::string_view kInclude = "include";
  if (line.substr(0, kInclude.size()) != kInclude) {
    return {};
  }
  line = trim(line.substr(kInclude.size()));
  if (line.size() < 2 || (line.front() != '<' && line.front() != '"')) {
    return {};
  }
  const char close = line.front() == '<' ? '>' : '"';
  const auto end = line.find(close, 1);
  return end == std::string_view::npos ? std::string_view{} : line.substr(1, end - 1);
}

/// The code of one line with comments blanked out: `// ...` to the end of the line and
/// `/* ... */` (which may span lines: `in_block` carries the state). String and character
/// literals are kept, so `"//"` does not hide the code after it.
std::string strip_comments(std::string_view raw, bool& in_block) {
  std::string code;
  code.reserve(raw.size());
  char quote = 0;  // '"' or '\'' inside a literal
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    const char next = i + 1 < raw.size() ? raw[i + 1] : '\0';
    if (in_block) {
      if (c == '*' && next == '/') {
        in_block = false;
        ++i;
      }
      continue;
    }
    if (quote != 0) {
      code.push_back(c);
      if (c == '\\' && i + 1 < raw.size()) {
        code.push_back(next);
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '/' && next == '/') {
      break;
    }
    if (c == '/' && next == '*') {
      in_block = true;
      code.push_back(' ');
      ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    }
    code.push_back(c);
  }
  return code;
}

/// Scans one source text; `file` only labels the offences. Comments are ignored (prose may name
/// atan2 when it explains the polynomial that replaces it); code is not.
std::vector<Offence> scan_source(std::string_view file, std::string_view text) {
  std::vector<Offence> found;
  int line_no = 0;
  bool in_block = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string_view raw = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    const std::string code = strip_comments(raw, in_block);
    const std::string_view line = trim(code);
    if (line.empty()) {
      continue;
    }
    auto report = [&](std::string what) {
      found.push_back({std::string(file), line_no, std::move(what), std::string(trim(raw))});
    };

    if (const std::string_view target = include_target(line); !target.empty()) {
      for (std::string_view bad : kForbiddenIncludes) {
        // "random" must match <random> but not <flockstep/math/random_walk.hpp>.
        const bool dir_prefix = bad.back() == '/' || bad == "google/protobuf";
        if ((dir_prefix && target.substr(0, bad.size()) == bad) || target == bad) {
          report("include <" + std::string(target) + ">");
        }
      }
      continue;
    }

    // Identifiers followed by `(`: a call (or declaration) of a forbidden function. Member
    // calls (`x.log(`, `p->exp(`) are not libm and are skipped; `std::sin(` is reported.
    std::size_t i = 0;
    while (i < line.size()) {
      if (!is_ident_char(line[i]) || (i > 0 && is_ident_char(line[i - 1]))) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < line.size() && is_ident_char(line[j])) {
        ++j;
      }
      const std::string_view ident = line.substr(i, j - i);
      std::size_t k = j;
      while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) {
        ++k;
      }
      const bool member = (i >= 1 && line[i - 1] == '.') || (i >= 2 && line[i - 1] == '>' && line[i - 2] == '-');
      if (k < line.size() && line[k] == '(' && !member && is_forbidden_call_name(ident)) {
        report("call " + std::string(ident) + "(");
      }
      i = j;
    }
  }
  return found;
}

bool is_source_file(const fs::path& p) {
  static constexpr std::array<std::string_view, 8> kExt = {".hpp", ".cpp", ".h", ".cc", ".cxx", ".hh", ".ipp", ".inl"};
  const std::string ext = p.extension().string();
  return std::find(kExt.begin(), kExt.end(), ext) != kExt.end();
}

std::string format(const std::vector<Offence>& offences) {
  std::ostringstream out;
  for (const Offence& o : offences) {
    out << o.file << ":" << o.line << ": " << o.what << "    " << o.text << "\n";
  }
  return out.str();
}

TEST(SharedHygiene, NoForbiddenIncludesOrLibmCallsInShared) {
  const fs::path root = fs::path(FLOCKSTEP_SOURCE_DIR);
  const fs::path shared = root / "shared";
  std::error_code ec;
  ASSERT_TRUE(fs::is_directory(shared, ec)) << shared << " is not readable here (wasm builds need -sNODERAWFS=1)";

  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(shared, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file() && is_source_file(it->path())) {
      files.push_back(it->path());
    }
  }
  ASSERT_FALSE(ec) << "walking " << shared << ": " << ec.message();
  std::sort(files.begin(), files.end());

  // The walk must have seen the tree, or an empty result would prove nothing.
  const fs::path angle = shared / "include" / "flockstep" / "math" / "angle.hpp";
  ASSERT_NE(std::find(files.begin(), files.end(), angle), files.end())
      << "did not find " << angle << " while walking " << shared;
  ASSERT_GE(files.size(), 10u);

  std::vector<Offence> offences;
  std::size_t lines = 0;
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    ASSERT_TRUE(in) << "cannot read " << f;
    std::ostringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();
    lines += static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    const auto found = scan_source(f.lexically_relative(root).generic_string(), text);
    offences.insert(offences.end(), found.begin(), found.end());
  }
  EXPECT_TRUE(offences.empty()) << offences.size() << " forbidden construct(s) in shared/ (" << files.size()
                                << " files, " << lines
                                << " lines scanned). Use flockstep::math::sin_cos/arctan2/arccos_clamped and "
                                << "math::Rng; shared/ is standard library only:\n"
                                << format(offences);
}

TEST(SharedHygiene, DetectorFlagsEachForbiddenConstructWithFileAndLine) {
  const std::string text =
      "#include <random>\n"                                                                         // 1
      "#  include <boost/asio.hpp>\n"                                                               // 2
      "#include \"google/protobuf/message.h\"\n"                                                    // 3
      "#include <nlohmann/json.hpp>\n"                                                              // 4
      "#include <chrono>\n"                                                                         // 5
      "#include <thread>\n"                                                                         // 6
      "#include <emscripten/html5.h>\n"                                                             // 7
      "#include <emscripten.h>\n"                                                                   // 8
      "real a = std::atan2(y, x);\n"                                                                // 9
      "real b = sinf (t) + cos(t);\n"                                                               // 10 (two)
      "int r = rand();\n"                                                                           // 11
      "  return pow(a, 2.0); // trailing\n"                                                         // 12
      "x = exp(-k) * log(2) + hypotf(a, b) + fmod(a, b) + tan(a) + atan(a) + asin(a) + acos(a);\n"  // 13 (8)
      "real c = q + ::sin(q);\n"                                                                    // 14
      "const char* s = \"//\"; real d = cos(q);\n"  // 15: a string is not a comment
      "/* a block comment\n"                        // 16
      "   that ends */ real e = tan(q);\n";         // 17
  const auto found = scan_source("synthetic.cpp", text);
  std::vector<int> lines;
  for (const Offence& o : found) {
    lines.push_back(o.line);
    EXPECT_EQ(o.file, "synthetic.cpp");
  }
  const std::vector<int> expected = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 10, 11,
                                     12, 13, 13, 13, 13, 13, 13, 13, 13, 14, 15, 17};
  EXPECT_EQ(lines, expected) << format(found);
  ASSERT_EQ(found.size(), expected.size());
  EXPECT_EQ(found[8].what, "call atan2(");
  EXPECT_EQ(found[9].what, "call sinf(");
  EXPECT_EQ(found[0].what, "include <random>");
  EXPECT_NE(format(found).find("synthetic.cpp:12: call pow("), std::string::npos) << format(found);
}

TEST(SharedHygiene, DetectorAcceptsAllowedLookalikes) {
  const std::string text =
      "#include <cmath>\n"
      "#include <flockstep/math/angle.hpp>\n"
      "#include \"flockstep/math/random_walk.hpp\"\n"
      "#include <threads_are_not_this.hpp>\n"
      "const SinCos sc = math::sin_cos(theta);\n"
      "real a = math::arctan2(y, x) + arccos_clamped(c) + std::sqrt(d) + std::floor(e);\n"
      "real s = sc.sin * sc.cos;\n"
      "v = explode(x) + logistic(y) + expected(z) + cosine_rule(w) + powder(1) + operand(2);\n"
      "x = rng.uniform01() + rng.exp(2) + p->log(3) + brand(4) + strand(5);\n"
      "// atan2(y, x) would differ between glibc and musl\n"
      "/// std::sin(x) reference, see arctan2\n"
      "/* pow(a, b) */\n"
      "int sinister = 0; real tangent = 1; real log2e = 2;\n"
      "x = 1; // atan2(0, 0) = 0 by convention\n"
      "y = 2; /* exp(x) */ z = 3;\n"
      "/* a block comment that spans lines\n"
      "   and mentions pow(a, b)\n"
      "   and fmod(a, b) */\n"
      "const char c = '\"'; w = 4; // rand() after a quote character\n";
  const auto found = scan_source("lookalikes.cpp", text);
  EXPECT_TRUE(found.empty()) << format(found);
}

}  // namespace
