#include <gtest/gtest.h>

#include "core/json_locations.h"

using namespace fxsim;

TEST(JsonLocations, FindsValuesAndKeysByPointer) {
  const char* text = "{\n  \"a\": 1,\n  \"list\": [10, {\"x/y\": true}],\n  \"s\": \"q\\\"x\"\n}";
  JsonLocations where(text);
  EXPECT_EQ(where.value("/a").line, 2);
  EXPECT_EQ(where.value("/a").column, 8);
  EXPECT_EQ(where.key("/a").column, 3);
  EXPECT_EQ(where.value("/list/1").column, 16);
  EXPECT_EQ(where.value("/list/1/x~1y").line, 3);
  EXPECT_EQ(where.value("/s").line, 4);
  // Unknown pointers fall back to the nearest known parent.
  EXPECT_EQ(where.value("/list/1/nothing").column, 16);
}

TEST(JsonLocations, ReportsDuplicateKeys) {
  JsonLocations where("{\"a\": 1, \"b\": {\"c\": 1, \"c\": 2}}");
  ASSERT_EQ(where.duplicate_keys().size(), 1u);
  EXPECT_EQ(where.duplicate_keys()[0], "/b/c");
}
