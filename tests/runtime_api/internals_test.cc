// The API's internal pieces: size expressions of launch metadata and its JSON form.
#include <gtest/gtest.h>

#include "handwritten_kernel.h"
#include "runtime/api/size_expression.h"

namespace {
using polyfuse::api::evaluate_size_expression;

TEST(SizeExpression, EvaluatesGridExpressions) {
  const std::map<std::string, std::int64_t> sizes = {{"M", 1000}, {"N", 256}};
  EXPECT_EQ(evaluate_size_expression("(M + 127) / 128", sizes), 8);
  EXPECT_EQ(evaluate_size_expression("N / 128", sizes), 2);
  EXPECT_EQ(evaluate_size_expression("M % 128 * 2 - -1", sizes), 209);
  EXPECT_EQ(evaluate_size_expression("1", sizes), 1);
  EXPECT_THROW(evaluate_size_expression("K / 2", sizes), std::invalid_argument);
  EXPECT_THROW(evaluate_size_expression("M / 0", sizes), std::invalid_argument);
  EXPECT_THROW(evaluate_size_expression("(M", sizes), std::invalid_argument);
  EXPECT_THROW(evaluate_size_expression("M $ 2", sizes), std::invalid_argument);
}

TEST(LaunchMetadataJson, RoundTrips) {
  const polyfuse::LaunchMetadata m = pf_runtime_test::scale_relu_metadata("sm_80");
  const nlohmann::json json = polyfuse::to_json(m);
  EXPECT_EQ(json["parameters"][1]["shape"], nlohmann::json::array({"n"}));
  EXPECT_FALSE(json["parameters"][2].contains("element"));
  const polyfuse::LaunchMetadata back = polyfuse::launch_metadata_from_json(json);
  EXPECT_EQ(polyfuse::to_json(back), json);
  EXPECT_EQ(back.parameters[1].kind, polyfuse::KernelParameter::Kind::output);
  EXPECT_EQ(back.grid[0].expression, "(n + 255) / 256");
  nlohmann::json broken = json;
  broken.erase("grid");
  EXPECT_THROW(polyfuse::launch_metadata_from_json(broken), std::invalid_argument);
  broken = json;
  broken["parameters"][0]["kind"] = "sideways";
  EXPECT_THROW(polyfuse::launch_metadata_from_json(broken), std::invalid_argument);
}

// An input read by TMA (the sm_90a main loop) keeps its box; the others have none.
TEST(LaunchMetadataJson, TmaBoxesRoundTrip) {
  polyfuse::LaunchMetadata m = pf_runtime_test::scale_relu_metadata("sm_90a");
  m.parameters[0].tma_box = {64, 64};
  const nlohmann::json json = polyfuse::to_json(m);
  EXPECT_EQ(json["parameters"][0]["tma_box"], nlohmann::json::array({64, 64}));
  EXPECT_FALSE(json["parameters"][1].contains("tma_box"));
  const polyfuse::LaunchMetadata back = polyfuse::launch_metadata_from_json(json);
  EXPECT_EQ(back.parameters[0].tma_box, (std::vector<int>{64, 64}));
  EXPECT_TRUE(back.parameters[1].tma_box.empty());
}

}  // namespace
