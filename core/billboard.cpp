#include "core/billboard.h"

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>

namespace fxsim {

BillboardAxes billboard_axes(BillboardMode mode, const CameraPose& camera, glm::vec3 center) {
  const glm::mat3 basis = camera.basis();
  BillboardAxes axes{basis[0], basis[1]};
  if (mode == BillboardMode::viewpoint) {
    const glm::vec3 n = glm::normalize(camera.position - center);
    const glm::vec3 r = glm::cross(basis[1], n);
    axes.right = glm::length(r) > 1e-6f ? glm::normalize(r) : basis[0];
    axes.up = glm::cross(n, axes.right);
  } else if (mode == BillboardMode::axial) {
    glm::vec3 n = camera.position - center;
    n.y = 0;
    n = glm::length(n) > 1e-6f ? glm::normalize(n) : glm::vec3(0, 0, 1);
    axes.right = glm::cross(glm::vec3(0, 1, 0), n);
    axes.up = {0, 1, 0};
  }
  return axes;
}

}  // namespace fxsim
