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

TEST(JsonLocations, ColumnsCountCharactersNotBytes) {
  // "é" is two bytes and "😀" four in UTF-8: an editor shows one column each.
  const std::string utf8 = "{\"n\": \"\xc3\xa9\xc3\xa9\xf0\x9f\x98\x80\", \"m\": 1}";
  JsonLocations characters(utf8);
  EXPECT_EQ(characters.value("/m").column, 19);  // {"n": "éé😀", "m": 1 (bytes: 24)
  const std::string ascii = "{\"n\": \"eeX\", \"m\": 1}";
  EXPECT_EQ(JsonLocations(ascii).value("/m").column, 19);
}

TEST(JsonLocations, ReportsDuplicateKeys) {
  JsonLocations where("{\"a\": 1, \"b\": {\"c\": 1, \"c\": 2}}");
  ASSERT_EQ(where.duplicate_keys().size(), 1u);
  EXPECT_EQ(where.duplicate_keys()[0].pointer, "/b/c");
}

TEST(JsonLocations, ComparesKeysAfterUnescaping) {
  // "se\u0065d" is "seed": the same key written twice.
  JsonLocations where(R"({"seed": 7, "se\u0065d": 8, "\u00e9": 1, "\u00c3\u00a9": 2})");
  ASSERT_EQ(where.duplicate_keys().size(), 1u);
  EXPECT_EQ(where.duplicate_keys()[0].pointer, "/seed");
  EXPECT_EQ(where.at_offset(where.duplicate_keys()[0].offset).column, 13);
}

TEST(JsonLocations, FindsKeysWrittenWithEscapes) {
  JsonLocations where("{\"a\\u0062\": {\"x\": 1}}");
  EXPECT_EQ(where.value("/ab/x").column, 19);
}

TEST(JsonLocations, StopsAtTheDepthLimitWithoutRecursing) {
  // 100 000 levels: a recursive scanner would overflow the stack here.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  JsonLocations where(deep);
  ASSERT_TRUE(where.too_deep().has_value());
  EXPECT_EQ(where.too_deep()->offset, size_t(JsonLocations::kMaxDepth));
  EXPECT_EQ(where.too_deep()->pointer.size(), 2u * JsonLocations::kMaxDepth);  // "/0" per level
  JsonLocations ok(std::string(JsonLocations::kMaxDepth, '[') + std::string(JsonLocations::kMaxDepth, ']'));
  EXPECT_FALSE(ok.too_deep().has_value());
}

TEST(JsonLocations, FindsNumbersBeyondTheRangeOfADouble) {
  JsonLocations where("{\"output\": {\"fps\": 1e400, \"w\": -2e308, \"z\": 1e-400, \"ok\": 1.7e308}}");
  ASSERT_EQ(where.out_of_range_numbers().size(), 2u);
  EXPECT_EQ(where.out_of_range_numbers()[0].pointer, "/output/fps");
  EXPECT_EQ(where.at_offset(where.out_of_range_numbers()[0].offset).column, 20);
  EXPECT_EQ(where.out_of_range_numbers()[1].pointer, "/output/w");
}

TEST(JsonLocations, ToleratesMalformedText) {
  for (const char* text : {"", "{", "[1,", "{\"a\"", "{\"a\": [1, {\"b\": \"\\u12", "]]]", "\"\\"}) {
    JsonLocations where(text);
    EXPECT_EQ(where.value("/a/1/b").line, 1) << text;
  }
}

TEST(JsonLocations, SplitsPointersIntoTokens) {
  EXPECT_EQ(json_pointer_tokens("/a~1b/~0/0"), (std::vector<std::string>{"a/b", "~", "0"}));
  EXPECT_TRUE(json_pointer_tokens("").empty());
  EXPECT_EQ(utf8_bom_length("\xEF\xBB\xBF{}"), 3u);
  EXPECT_EQ(utf8_bom_length("{}"), 0u);
}
