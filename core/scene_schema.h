#pragma once
// The JSON Schema (draft 2020-12) of the scene format, made from the parser's
// own definitions: the parser reads probe scenes that reach every object of
// the format (each emitter type, in each of its modes) while a SchemaRecorder
// (core/scene_reader.h) notes every key each object reads, the types and
// ranges its getters check and the alternatives it accepts by hand. So the
// schema cannot drift from the parser: a key added to the parser is in it.
// It judges structure, types, ranges and known keys; rules across keys (a
// plate depth needs a plate, a later camera key needs a later time) stay the
// parser's (fxsim validate).
#include <vector>

#include <nlohmann/json.hpp>

namespace fxsim {

// Scenes that together reach every object and key of the format (also the
// scene-format documentation test's catalogue of accepted keys).
const std::vector<const char*>& schema_probe_scenes();

nlohmann::json scene_schema();

}  // namespace fxsim
