#include "view/geometry.hpp"

#include <cmath>

namespace flockstep::client {

Instance make_instance(math::Vec2 p, double angle, float scale, Rgba color) {
  const double c = std::cos(angle), s = std::sin(angle);  // display only: libm is fine here
  const double k = static_cast<double>(scale);
  return {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(c * k), static_cast<float>(s * k),
          color};
}

}  // namespace flockstep::client
