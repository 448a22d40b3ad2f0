#include "core/camera_path.h"

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>

namespace fxsim {

glm::vec3 CameraPose::forward() const { return glm::normalize(target - position); }

glm::mat3 CameraPose::basis() const {
  const glm::vec3 back = -forward();
  glm::vec3 right = glm::cross(up, back);
  if (glm::dot(right, right) < 1e-12f) right = glm::cross(glm::vec3(0, 0, 1), back);  // looking along up
  right = glm::normalize(right);
  return glm::mat3(right, glm::cross(back, right), back);
}

glm::mat4 CameraPose::view() const {
  const glm::mat3 b = basis();
  glm::mat4 v(1.0f);
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 3; ++col) v[col][row] = b[row][col];  // transpose
  const glm::vec3 t = glm::transpose(b) * position;
  v[3] = glm::vec4(-t, 1.0f);
  return v;
}

glm::mat4 CameraPose::projection(float aspect) const {
  return glm::perspective(glm::radians(fov_degrees), aspect, near_plane, far_plane);
}

namespace {
// Cubic Hermite between p1 and p2 over [t1, t2] with Catmull–Rom tangents that
// account for uneven key spacing; the end tangents are one-sided (clamped).
glm::vec3 catmull_rom(const std::vector<CameraKey>& keys, size_t i, double t, glm::vec3 CameraKey::*field) {
  const size_t n = keys.size();
  const auto tangent = [&](size_t k) {
    const size_t a = k == 0 ? 0 : k - 1, b = std::min(k + 1, n - 1);
    const double span = keys[b].time - keys[a].time;
    return span > 0 ? (keys[b].*field - keys[a].*field) / float(span) : glm::vec3(0);
  };
  const double t1 = keys[i].time, t2 = keys[i + 1].time, h = t2 - t1;
  const float s = float((t - t1) / h);
  const float s2 = s * s, s3 = s2 * s;
  const glm::vec3 p1 = keys[i].*field, p2 = keys[i + 1].*field;
  const glm::vec3 m1 = tangent(i) * float(h), m2 = tangent(i + 1) * float(h);
  return (2 * s3 - 3 * s2 + 1) * p1 + (s3 - 2 * s2 + s) * m1 + (-2 * s3 + 3 * s2) * p2 + (s3 - s2) * m2;
}
}  // namespace

CameraPose camera_view_at(const CameraSettings& camera, double t) {
  CameraPose pose{camera.position, camera.target, camera.up, camera.fov, camera.near_plane, camera.far_plane};
  const auto& keys = camera.keys;
  if (keys.empty()) return pose;
  if (t <= keys.front().time) {
    pose.position = keys.front().position;
    pose.target = keys.front().target;
  } else if (t >= keys.back().time) {
    pose.position = keys.back().position;
    pose.target = keys.back().target;
  } else {
    const auto next = std::upper_bound(keys.begin(), keys.end(), t,
                                       [](double time, const CameraKey& k) { return time < k.time; });
    const size_t i = size_t(next - keys.begin()) - 1;
    pose.position = catmull_rom(keys, i, t, &CameraKey::position);
    pose.target = catmull_rom(keys, i, t, &CameraKey::target);
  }
  return pose;
}

ViewProblem view_problem(glm::vec3 position, glm::vec3 target, glm::vec3 up) {
  const glm::vec3 view = target - position;
  if (glm::length(view) < 1e-3f) return ViewProblem::target_at_eye;
  if (glm::length(glm::cross(glm::normalize(view), glm::normalize(up))) < 1e-3f) return ViewProblem::along_up;
  return ViewProblem::none;
}

CameraPose camera_at(const CameraSettings& camera, double t) {
  CameraPose pose = camera_view_at(camera, t);
  if (!camera.keys.empty()) {
    const double h = 1e-3;  // central difference; one-sided ends follow from the clamping
    pose.velocity = (camera_view_at(camera, t + h).position - camera_view_at(camera, t - h).position) / float(2 * h);
  }
  return pose;
}

}  // namespace fxsim
