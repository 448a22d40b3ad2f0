// The hostile scenes (tests/hostile_scenes.h).
#include "hostile_scenes.h"

namespace fxsim::test {

std::string with_emitter(const std::string& emitter, const std::string& top) {
  return R"({"fxsim": 1, )" + top + R"("emitters": [)" + emitter + "]}";
}

std::vector<Hostile> hostile_scenes() {
  return {
      // Numbers that are finite as doubles but not as the floats the code uses.
      {"size_1e308", [] { return with_emitter(R"({"type": "snow", "size": 1e308})"); }, "/emitters/0/size: expected a number in 1e-06..10000"},
      {"region_1e308", [] { return with_emitter(R"({"type": "snow", "region": {"size": [1e308, 1, 1]}})"); }, "/emitters/0/region/size"},
      {"region_denormal", [] { return with_emitter(R"({"type": "snow", "region": {"size": [5e-324, 1, 1]}})"); }, "each in 0.001..1000000"},
      {"fps_denormal", [] { return with_emitter(R"({"type": "snow"})", R"("output": {"fps": 5e-324}, )"); }, "/output/fps: expected a number in 0.01..1000"},
      {"near_tiny", [] { return with_emitter(R"({"type": "snow"})", R"("camera": {"near": 1e-50}, )"); }, "/camera/near: expected a number in 0.0001..100000"},
      {"gravity_scale_huge", [] { return with_emitter(R"({"type": "snow", "gravity_scale": 1e308})"); }, "/emitters/0/gravity_scale"},
      {"turbulence_huge", [] { return with_emitter(R"({"type": "snow"})", R"("environment": {"wind": {"turbulence": {"strength": 1e308}}}, )"); },
       "/environment/wind/turbulence/strength: expected a number in 0..1000"},
      {"fire_size_1e39", [] { return with_emitter(R"({"type": "fire", "size": [1e39, 1]})"); }, "/emitters/0/size"},
      {"velocity_huge", [] { return with_emitter(R"({"type": "rain", "velocity": [0, -1e6, 0]})"); }, "each in -10000..10000"},
      {"depth_k_huge", [] { return with_emitter(R"({"type": "snow", "depth_scale": "exp", "depth_k": 1000})"); }, "/emitters/0/depth_k"},
      {"mist_lifetime_zero", [] { return with_emitter(R"({"type": "fountain", "ring": {}, "mist": {"lifetime": 1e-300}})"); }, "/emitters/0/mist/lifetime"},
      {"nozzle_direction_tiny", [] { return with_emitter(R"({"type": "fountain", "nozzles": [{"direction": [1e-30, 0, 0]}]})"); }, "of length > 0.001"},
      {"wind_huge", [] { return with_emitter(R"({"type": "snow"})", R"("environment": {"wind": {"velocity": [1e30, 0, 0]}}, )"); }, "/environment/wind/velocity"},
      {"gust_period_tiny", [] { return with_emitter(R"({"type": "snow"})", R"("environment": {"wind": {"gust": {"period": 1e-30}}}, )"); }, "/environment/wind/gust/period"},
      {"start_huge", [] { return with_emitter(R"({"type": "snow", "start": 1e300})"); }, "/emitters/0/start: expected a number in 0..10000000"},
      // Rules that state the real limits.
      {"frames_1e9", [] { return with_emitter(R"({"type": "snow"})", R"("output": {"frames": 1000000000}, )"); }, "expected an integer in 1..10000000"},
      {"substeps_5000", [] { return with_emitter(R"({"type": "snow"})", R"("output": {"substeps": 5000}, )"); }, "expected an integer in 1..1000"},
      {"seed_beyond_int64", [] { return with_emitter(R"({"type": "snow"})", R"("seed": 18446744073709551615, )"); }, "/seed: expected an integer in 0..9223372036854775807"},
      {"max_particles_huge", [] { return with_emitter(R"({"type": "snow", "max_particles": 1e12})"); }, "in 0..2147483647"},
      // Degenerate cameras.
      {"eye_on_target", [] { return with_emitter(R"({"type": "snow"})", R"("camera": {"position": [1, 2, 3], "target": [1, 2, 3]}, )"); },
       "/camera/target: expected a target at least 0.001 m from the camera position"},
      {"key_eye_on_target", [] { return with_emitter(R"({"type": "snow"})", R"("camera": {"keys": [{"time": 0, "position": [0, 1, 0], "target": [0, 1, 0]}]}, )"); },
       "/camera/keys/0/target"},
      {"up_along_view", [] { return with_emitter(R"({"type": "snow"})", R"("camera": {"position": [0, 0, 0], "target": [0, 5, 0]}, )"); },
       "not parallel to the camera's up"},
      {"up_zero", [] { return with_emitter(R"({"type": "snow"})", R"("camera": {"up": [0, 0, 0]}, )"); }, "/camera/up"},
      {"path_crosses_itself",
       [] { return with_emitter(R"({"type": "snow"})",
                    R"("camera": {"keys": [{"time": 0, "position": [0, 1, 5], "target": [0, 1, -5]}, {"time": 1, "position": [0, 1, -5], "target": [0, 1, 5]}]}, )"); },
       "/camera/keys: expected a camera path whose target stays apart"},
      // JSON that is technically valid but not what anyone meant.
      {"escaped_duplicate_key", [] { return with_emitter(R"({"type": "snow"})", R"("seed": 7, "se\u0065d": 8, )"); }, "/seed: duplicate key"},
      {"number_beyond_double", [] { return with_emitter(R"({"type": "snow"})", R"("output": {"fps": 1e400}, )"); },
       "/output/fps: expected a number within the range of a double"},
      {"negative_beyond_double", [] { return with_emitter(R"({"type": "snow", "gravity_scale": -1e999})"); }, "/emitters/0/gravity_scale: expected a number within the range"},
      {"too_many_emitters", [] {
         std::string list;
         for (int i = 0; i < 100000; ++i) list += std::string(i ? "," : "") + "{\"type\": \"snow\"}";
         return with_emitter(list);
       }, "/emitters: expected at most 4096 emitters, got 100000"},
      {"deep_arrays", [] { return "{\"fxsim\": 1, \"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}"; },
       "nested deeper than 256 levels"},
      {"deep_objects", [] {
         std::string s = "{\"fxsim\": 1, \"x\": ";
         for (int i = 0; i < 30000; ++i) s += "{\"a\": ";
         s += "1";
         for (int i = 0; i < 30000; ++i) s += "}";
         return s + "}";
       }, "nested deeper than 256 levels"},
      {"huge_unknown_array", [] {
         std::string numbers;
         for (int i = 0; i < 3000000; ++i) numbers += i ? ",1" : "1";
         return R"({"fxsim": 1, "emitters": [{"type": "snow"}], "junk": [)" + numbers + "]}";
       }, "/junk: unknown key \"junk\""},
      {"long_unknown_key", [] { return with_emitter(R"({"type": "snow", ")" + std::string(200000, 'k') + R"(": 1})"); }, "unknown key"},
      {"many_problems", [] {
         std::string list;
         for (int i = 0; i < 3000; ++i) list += std::string(i ? "," : "") + "{\"type\": \"snow\", \"size\": -1}";
         return with_emitter(list);
       }, "3000 problems"},
      // Keys of another light or emitter type, and rules of one key, that the schema let pass.
      {"directional_position", [] { return with_emitter(R"({"type": "snow"})", R"("environment": {"lights": [{"type": "directional", "position": [0, 5, 0]}]}, )"); },
       "/environment/lights/0/position: a directional light has no \"position\" (point and spot lights have one)"},
      {"point_cone", [] { return with_emitter(R"({"type": "snow"})", R"("environment": {"lights": [{"type": "point", "inner_cone": 10}]}, )"); },
       "/environment/lights/0/inner_cone: a point light has no \"inner_cone\" (spot lights have one)"},
      {"point_direction", [] { return with_emitter(R"({"type": "snow"})", R"("environment": {"lights": [{"type": "point", "direction": [0, -1, 0]}]}, )"); },
       "a point light has no \"direction\" (directional and spot lights have one)"},
      {"explosion_duration_null", [] { return with_emitter(R"({"type": "explosion", "duration": null})"); },
       "/emitters/0/duration: expected a finite duration in seconds (> 0) for an explosion, got null"},
      {"explosion_size_variation", [] { return with_emitter(R"({"type": "explosion", "size_variation": 1})"); },
       "/emitters/0/size_variation: explosion emitters have no \"size_variation\" (their debris vary in size on their own)"},
      {"fire_size_variation", [] { return with_emitter(R"({"type": "fire", "size_variation": 0.5})"); },
       "fire emitters have no \"size_variation\" (their embers vary in size on their own)"},
      {"nozzles_empty", [] { return with_emitter(R"({"type": "fountain", "nozzles": []})"); }, "expected at least one nozzle"},
      {"name_empty", [] { return with_emitter(R"({"type": "snow", "name": ""})"); }, "/emitters/0/name"},
      {"name_dot_dot", [] { return with_emitter(R"({"type": "snow", "name": ".."})"); }, "/emitters/0/name"},
      {"name_slash", [] { return with_emitter(R"({"type": "snow", "name": "a/b"})"); }, "/emitters/0/name"},
      {"name_tab", [] { return with_emitter(R"({"type": "snow", "name": "a\tb"})"); }, "/emitters/0/name"},
      {"name_65", [] { return with_emitter(R"({"type": "snow", "name": ")" + std::string(65, 'a') + R"("})"); }, "/emitters/0/name"},
  };
}

}  // namespace fxsim::test
