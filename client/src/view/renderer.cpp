#include "view/renderer.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

// EM_ASM blocks are JavaScript: their $0, $1 arguments are not C++ identifiers (-Wpedantic).
#pragma clang diagnostic ignored "-Wdollar-in-identifier-extension"

namespace flockstep::client {

namespace {

// Instanced shapes: rotate and scale a unit mesh on the GPU (4 floats + 4 bytes per agent).
// u_min_scale keeps tiny agents visible when zoomed out (and on the minimap).
const char* kShapeVs = R"(#version 300 es
layout(location = 0) in vec2 a_local;
layout(location = 1) in vec4 a_inst;   // x, y (m), size * (cos, sin) of the heading (m)
layout(location = 2) in vec4 a_color;
uniform vec2 u_center;
uniform vec2 u_scale;                  // clip units per metre
uniform float u_min_scale;             // m
out vec4 v_color;
void main() {
  vec2 u = a_inst.zw;
  float len = length(u);
  u = len > 0.0 ? u * (max(len, u_min_scale) / len) : vec2(u_min_scale, 0.0);
  vec2 p = vec2(u.x * a_local.x - u.y * a_local.y, u.y * a_local.x + u.x * a_local.y);
  gl_Position = vec4((a_inst.xy - u_center + p) * u_scale, 0.0, 1.0);
  v_color = a_color;
})";

const char* kColorVs = R"(#version 300 es
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_color;
uniform vec2 u_center;
uniform vec2 u_scale;
uniform float u_point_size;            // px, for GL_POINTS
out vec4 v_color;
void main() {
  gl_Position = vec4((a_pos - u_center) * u_scale, 0.0, 1.0);
  gl_PointSize = u_point_size;
  v_color = a_color;
})";

const char* kFs = R"(#version 300 es
precision mediump float;
in vec4 v_color;
out vec4 o_color;
void main() { o_color = v_color; })";

using Tri = std::vector<float>;

void tri(Tri& m, float ax, float ay, float bx, float by, float cx, float cy) {
  m.insert(m.end(), {ax, ay, bx, by, cx, cy});
}

void fan(Tri& m, float cx, float cy, float r, int n) {
  constexpr float kTau = 6.28318530718f;
  for (int i = 0; i < n; ++i) {
    const float a0 = kTau * static_cast<float>(i) / static_cast<float>(n);
    const float a1 = kTau * static_cast<float>(i + 1) / static_cast<float>(n);
    tri(m, cx, cy, cx + r * std::cos(a0), cy + r * std::sin(a0), cx + r * std::cos(a1), cy + r * std::sin(a1));
  }
}

}  // namespace

GLuint Renderer::compile(GLenum type, const char* src) {
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    std::fprintf(stderr, "shader: %s\n", log);
  }
  return s;
}

GLuint Renderer::link(const char* vs, const char* fs) {
  const GLuint p = glCreateProgram();
  const GLuint v = compile(GL_VERTEX_SHADER, vs), f = compile(GL_FRAGMENT_SHADER, fs);
  glAttachShader(p, v);
  glAttachShader(p, f);
  glLinkProgram(p);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024];
    glGetProgramInfoLog(p, sizeof log, nullptr, log);
    std::fprintf(stderr, "program: %s\n", log);
  }
  return p;
}

bool Renderer::init(const char* canvas_selector, bool antialias) {
  EmscriptenWebGLContextAttributes attrs;
  emscripten_webgl_init_context_attributes(&attrs);
  attrs.majorVersion = 2;
  attrs.minorVersion = 0;
  attrs.alpha = EM_FALSE;
  attrs.antialias = antialias ? EM_TRUE : EM_FALSE;
  attrs.depth = EM_FALSE;
  attrs.stencil = EM_FALSE;
  attrs.preserveDrawingBuffer = EM_FALSE;  // page screenshots capture the composited canvas anyway
  attrs.powerPreference = EM_WEBGL_POWER_PREFERENCE_HIGH_PERFORMANCE;
  const EMSCRIPTEN_WEBGL_CONTEXT_HANDLE ctx = emscripten_webgl_create_context(canvas_selector, &attrs);
  if (ctx <= 0) return false;
  context_ = static_cast<int>(ctx);
  emscripten_webgl_make_context_current(ctx);

  shape_program_ = link(kShapeVs, kFs);
  color_program_ = link(kColorVs, kFs);
  u_shape_center_ = glGetUniformLocation(shape_program_, "u_center");
  u_shape_scale_ = glGetUniformLocation(shape_program_, "u_scale");
  u_shape_min_ = glGetUniformLocation(shape_program_, "u_min_scale");
  u_color_center_ = glGetUniformLocation(color_program_, "u_center");
  u_color_scale_ = glGetUniformLocation(color_program_, "u_scale");
  u_point_size_ = glGetUniformLocation(color_program_, "u_point_size");

  // Every mesh in one static buffer, as triangle lists of unit size pointing along +x.
  Tri all;
  auto begin = [&](Shape s) { meshes_[static_cast<int>(s)].first = static_cast<GLint>(all.size() / 2); };
  auto end = [&](Shape s) {
    Mesh& m = meshes_[static_cast<int>(s)];
    m.count = static_cast<GLsizei>(all.size() / 2) - m.first;
  };
  begin(Shape::kDart);  // notched dart
  tri(all, 1.0f, 0.0f, -0.8f, 0.62f, -0.35f, 0.0f);
  tri(all, 1.0f, 0.0f, -0.35f, 0.0f, -0.8f, -0.62f);
  end(Shape::kDart);
  begin(Shape::kArrow);  // broad arrowhead with a tail
  tri(all, 1.0f, 0.0f, -0.6f, 0.55f, -0.6f, -0.55f);
  tri(all, -0.6f, 0.18f, -1.0f, 0.18f, -1.0f, -0.18f);
  tri(all, -0.6f, 0.18f, -1.0f, -0.18f, -0.6f, -0.18f);
  end(Shape::kArrow);
  begin(Shape::kBoid);  // slim triangle
  tri(all, 1.0f, 0.0f, -0.7f, 0.38f, -0.7f, -0.38f);
  end(Shape::kBoid);
  begin(Shape::kSquare);  // box with a nose
  tri(all, -0.6f, -0.6f, 0.6f, -0.6f, 0.6f, 0.6f);
  tri(all, -0.6f, -0.6f, 0.6f, 0.6f, -0.6f, 0.6f);
  tri(all, 0.6f, 0.35f, 1.0f, 0.0f, 0.6f, -0.35f);
  end(Shape::kSquare);
  begin(Shape::kHex);  // hexagon with a nose
  fan(all, 0.0f, 0.0f, 0.7f, 6);
  tri(all, 0.55f, 0.3f, 1.05f, 0.0f, 0.55f, -0.3f);
  end(Shape::kHex);
  begin(Shape::kDisc);
  fan(all, 0.0f, 0.0f, 1.0f, 40);
  end(Shape::kDisc);
  begin(Shape::kRing);
  {
    constexpr int n = 48;
    constexpr float kTau = 6.28318530718f, r0 = 0.9f, r1 = 1.0f;
    for (int i = 0; i < n; ++i) {
      const float a0 = kTau * static_cast<float>(i) / n, a1 = kTau * static_cast<float>(i + 1) / n;
      const float c0 = std::cos(a0), s0 = std::sin(a0), c1 = std::cos(a1), s1 = std::sin(a1);
      tri(all, r0 * c0, r0 * s0, r1 * c0, r1 * s0, r1 * c1, r1 * s1);
      tri(all, r0 * c0, r0 * s0, r1 * c1, r1 * s1, r0 * c1, r0 * s1);
    }
  }
  end(Shape::kRing);

  glGenVertexArrays(1, &shape_vao_);
  glGenBuffers(1, &mesh_vbo_);
  glGenBuffers(1, &instance_vbo_);
  glBindVertexArray(shape_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, mesh_vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(all.size() * sizeof(float)), all.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glBindBuffer(GL_ARRAY_BUFFER, instance_vbo_);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(Instance), nullptr);
  glVertexAttribDivisor(1, 1);
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(Instance), reinterpret_cast<const void*>(16));
  glVertexAttribDivisor(2, 1);

  glGenVertexArrays(1, &color_vao_);
  glGenBuffers(1, &color_vbo_);
  glBindVertexArray(color_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, color_vbo_);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(ColorVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(ColorVertex), reinterpret_cast<const void*>(8));
  glBindVertexArray(0);

  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);

  mesh_data_ = all;
  // Which rasteriser? WEBGL_debug_renderer_info gives the real name where the browser allows.
  EM_ASM(
      {
        var gl = GL.currentContext.GLctx;
        var ext = gl.getExtension('WEBGL_debug_renderer_info');
        var name = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER) || "");
        stringToUTF8(name, $0, $1);
      },
      renderer_name_, static_cast<int>(sizeof renderer_name_));
  const std::string name = renderer_name_;
  expand_ = name.find("SwiftShader") != std::string::npos || name.find("llvmpipe") != std::string::npos ||
            name.find("Software") != std::string::npos;
  return true;
}

void Renderer::begin_frame(int w, int h, Rgba clear) {
  width_ = w;
  height_ = h;
  draw_calls_ = 0;
  glViewport(0, 0, w, h);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(clear.r / 255.0f, clear.g / 255.0f, clear.b / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

void Renderer::begin_inset(int x, int y, int w, int h, Rgba clear) {
  glViewport(x, y, w, h);
  glEnable(GL_SCISSOR_TEST);
  glScissor(x, y, w, h);
  glClearColor(clear.r / 255.0f, clear.g / 255.0f, clear.b / 255.0f, clear.a / 255.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

void Renderer::end_inset() {
  glDisable(GL_SCISSOR_TEST);
  glViewport(0, 0, width_, height_);
}

void Renderer::set_camera(const Camera& cam, float min_px) {
  const float sx = static_cast<float>(2.0 * cam.zoom / cam.width);
  const float sy = static_cast<float>(2.0 * cam.zoom / cam.height);
  glUseProgram(shape_program_);
  glUniform2f(u_shape_center_, static_cast<float>(cam.cx), static_cast<float>(cam.cy));
  glUniform2f(u_shape_scale_, sx, sy);
  min_scale_ = static_cast<float>(static_cast<double>(min_px) / cam.zoom);
  glUniform1f(u_shape_min_, min_scale_);
  glUseProgram(color_program_);
  glUniform2f(u_color_center_, static_cast<float>(cam.cx), static_cast<float>(cam.cy));
  glUniform2f(u_color_scale_, sx, sy);
}

void Renderer::stream(GLuint buffer, const void* data, GLsizeiptr bytes, GLsizeiptr& capacity) {
  // One glBufferData with the data: a fresh store each draw (no wait on the GPU reading the old
  // one) without WebGL zero-filling a larger empty store first.
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, bytes, data, GL_STREAM_DRAW);
  capacity = bytes;
}

void Renderer::draw(Shape shape, std::span<const Instance> instances) {
  if (instances.empty()) return;
  if (expand_) {
    // Same transform as the vertex shader, on the CPU, into one triangle list.
    const Mesh& m = meshes_[static_cast<int>(shape)];
    expanded_.resize(instances.size() * static_cast<std::size_t>(m.count));
    ColorVertex* out = expanded_.data();
    const float* local = mesh_data_.data() + 2 * m.first;
    for (const Instance& in : instances) {
      float ux = in.ux, uy = in.uy;
      const float len = std::sqrt(ux * ux + uy * uy);
      if (len < min_scale_) {
        if (len > 0) {
          ux *= min_scale_ / len;
          uy *= min_scale_ / len;
        } else {
          ux = min_scale_;
          uy = 0;
        }
      }
      for (GLsizei k = 0; k < m.count; ++k) {
        const float lx = local[2 * k], ly = local[2 * k + 1];
        *out++ = {in.x + ux * lx - uy * ly, in.y + uy * lx + ux * ly, in.color};
      }
    }
    draw_triangles(expanded_);
    return;
  }
  glUseProgram(shape_program_);
  glBindVertexArray(shape_vao_);
  stream(instance_vbo_, instances.data(), static_cast<GLsizeiptr>(instances.size_bytes()), instance_capacity_);
  const Mesh& m = meshes_[static_cast<int>(shape)];
  glDrawArraysInstanced(GL_TRIANGLES, m.first, m.count, static_cast<GLsizei>(instances.size()));
  ++draw_calls_;
}

void Renderer::draw_lines(std::span<const ColorVertex> vertices) {
  if (vertices.size() < 2) return;
  glUseProgram(color_program_);
  glBindVertexArray(color_vao_);
  stream(color_vbo_, vertices.data(), static_cast<GLsizeiptr>(vertices.size_bytes()), color_capacity_);
  glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(vertices.size() & ~std::size_t{1}));
  ++draw_calls_;
}

void Renderer::draw_points(std::span<const ColorVertex> vertices, float size_px) {
  if (vertices.empty()) return;
  glUseProgram(color_program_);
  glUniform1f(u_point_size_, size_px);
  glBindVertexArray(color_vao_);
  stream(color_vbo_, vertices.data(), static_cast<GLsizeiptr>(vertices.size_bytes()), color_capacity_);
  glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(vertices.size()));
  ++draw_calls_;
}

void Renderer::draw_triangles(std::span<const ColorVertex> vertices) {
  if (vertices.size() < 3) return;
  glUseProgram(color_program_);
  glBindVertexArray(color_vao_);
  stream(color_vbo_, vertices.data(), static_cast<GLsizeiptr>(vertices.size_bytes()), color_capacity_);
  glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(vertices.size() / 3 * 3));
  ++draw_calls_;
}

}  // namespace flockstep::client
