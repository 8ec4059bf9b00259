#pragma once
/// \file renderer.hpp
/// WebGL2 drawing: one instanced draw per shape (thousands of agents cost a handful of draw
/// calls), plus coloured line and triangle lists for walls, annotations, trails and the HUD
/// parts drawn in the canvas (minimap frame). All geometry is in world metres; a Camera maps it
/// to the canvas. Instance and vertex buffers are streamed every frame (orphaned, no stalls).
#include <cstdint>
#include <span>
#include <vector>

#include <GLES3/gl3.h>

#include "flockstep/math/vec2.hpp"
#include "view/geometry.hpp"

namespace flockstep::client {

/// Shapes, each a small mesh of unit size pointing along +x.
enum class Shape : std::uint8_t {
  kDart = 0,  ///< player craft
  kArrow,     ///< pursuer
  kBoid,      ///< flock member: slim triangle
  kSquare,    ///< patrol: square with a nose
  kHex,       ///< wanderer
  kDisc,      ///< filled circle of radius 1 (obstacles, markers)
  kRing,      ///< circle outline of radius 1 (as thin triangles)
  kCount
};

/// See file comment.
class Renderer {
 public:
  /// Create the WebGL2 context on the canvas (CSS selector, e.g. "#canvas"). False if WebGL2 is
  /// missing. `antialias`: multisampling (smooth edges; costly with software GL).
  bool init(const char* canvas_selector, bool antialias = true);
  /// Start a frame on the whole canvas of w x h device px with a background colour.
  void begin_frame(int w, int h, Rgba clear);
  /// Restrict drawing to a rectangle (origin bottom-left, px) with its own background; used
  /// for the minimap. end_inset() returns to the whole canvas.
  void begin_inset(int x, int y, int w, int h, Rgba clear);
  void end_inset();
  /// Camera for the following draws; `min_px` makes every shape at least that many pixels tall.
  void set_camera(const Camera& cam, float min_px = 0);
  /// One instanced draw of `shape` for every instance.
  void draw(Shape shape, std::span<const Instance> instances);
  /// Pairs of vertices as GL_LINES (1 px wide: WebGL ignores line width).
  void draw_lines(std::span<const ColorVertex> vertices);
  /// One square point of size_px pixels per vertex (the minimap's agents).
  void draw_points(std::span<const ColorVertex> vertices, float size_px);
  /// Triples of vertices as triangles.
  void draw_triangles(std::span<const ColorVertex> vertices);
  /// Draw calls issued since begin_frame (for the HUD).
  int draw_calls() const { return draw_calls_; }
  /// True when shapes are expanded on the CPU instead of instanced: software rasterisers
  /// (SwiftShader, llvmpipe) pay a large fixed cost per instance, real GPUs do not.
  bool expanded() const { return expand_; }
  /// Force instancing on or off (default: off only for software rasterisers).
  void set_expanded(bool on) { expand_ = on; }
  /// The GL renderer string (unmasked where the browser allows).
  const char* renderer_name() const { return renderer_name_; }

 private:
  struct Mesh {
    GLint first = 0;
    GLsizei count = 0;
  };
  GLuint compile(GLenum type, const char* src);
  GLuint link(const char* vs, const char* fs);
  void stream(GLuint buffer, const void* data, GLsizeiptr bytes, GLsizeiptr& capacity);

  int context_ = 0;
  GLuint shape_program_ = 0, color_program_ = 0;
  GLint u_shape_center_ = -1, u_shape_scale_ = -1, u_shape_min_ = -1;
  GLint u_color_center_ = -1, u_color_scale_ = -1, u_point_size_ = -1;
  GLuint shape_vao_ = 0, color_vao_ = 0;
  GLuint mesh_vbo_ = 0, instance_vbo_ = 0, color_vbo_ = 0;
  GLsizeiptr instance_capacity_ = 0, color_capacity_ = 0;
  Mesh meshes_[static_cast<int>(Shape::kCount)];
  std::vector<float> mesh_data_;       // every mesh, x y pairs (for the expanded path)
  std::vector<ColorVertex> expanded_;  // scratch of the expanded path
  bool expand_ = false;
  float min_scale_ = 0;
  char renderer_name_[128] = {0};
  int width_ = 1, height_ = 1;
  int draw_calls_ = 0;
};

}  // namespace flockstep::client
