#pragma once
// The thin lens of camera.aperture (docs/scene-format.md): a sensor 24 mm
// high behind a lens whose focal length gives the camera's vertical field of
// view, f = (h / 2) / tan(fov / 2), opened to f-number N (diameter A = f / N)
// and focused at distance s. A point at distance d is imaged as a disc of
// diameter
//   c = A · f / (s − f) · |d − s| / d        (on the sensor)
// which is c · H / h pixels on an image H pixels high.
namespace fxsim {

struct ThinLens {
  float scale = 0;  // pixels: the disc is scale · |d − focus| / d
  float focus = 1;  // m
  float circle_of_confusion(float distance) const;
};

inline constexpr float kSensorHeight = 0.024f;  // m (a full-frame sensor's 24 mm)

// The focal length, metres, of a vertical field of view on that sensor.
float focal_length(float fov_degrees);

ThinLens thin_lens(float fov_degrees, float f_number, float focus_distance, int image_height);

}  // namespace fxsim
