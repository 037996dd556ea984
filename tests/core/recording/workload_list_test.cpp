// The --list --json document: what the recorder writes, the app reads back the same; anything else
// is refused with a reason.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/recording/workload_list.h"

namespace sawtooth::recording {
namespace {

WorkloadList sampleList() {
  WorkloadList list;
  list.workloads.push_back({"anatomy",
                            "Memory anatomy of a step",
                            "An MLP…",
                            {{"layers", "int", "layers", "6", "4", {}, 1, 256},
                             {"lr", "float", "learning rate", "0.001", "0.001", {}, 0, 10},
                             {"optimizer", "choice", "", "adam", "adam", {"adam", "sgd"}}},
                            false});
  list.workloads.push_back({"data-parallel", "Data parallel", "", {{"variant", "choice", "", "plain", "plain", {"plain", "sharded"}}}, true});
  list.cuda_available = true;
  list.cuda_devices = 2;
  list.environment = {{"device_name", "NVIDIA H200"}, {"device_total_bytes", "150119260160"}, {"torch_version", "2.11.0"}};
  return list;
}

TEST(WorkloadList, RoundTripsThroughJson) {
  const WorkloadList list = sampleList();
  auto back = parseWorkloadList(toJson(list));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->workloads.size(), 2u);
  const WorkloadSpec* a = back->find("anatomy");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->title, "Memory anatomy of a step");
  ASSERT_EQ(a->parameters.size(), 3u);
  EXPECT_EQ(a->parameters[0].gpu_default, "6");
  EXPECT_EQ(a->parameters[0].cpu_default, "4");
  EXPECT_EQ(a->parameters[0].max, 256);
  EXPECT_EQ(a->parameters[2].choices, (std::vector<std::string>{"adam", "sgd"}));
  EXPECT_TRUE(std::isinf(a->parameters[2].min));  // no bound written, none read
  EXPECT_TRUE(back->find("data-parallel")->distributed);
  EXPECT_TRUE(back->cuda_available);
  EXPECT_EQ(back->cuda_devices, 2);
  EXPECT_EQ(back->deviceDescription(), "NVIDIA H200, 150.12 GB");
  EXPECT_FALSE(back->find("precision"));
}

TEST(WorkloadList, NoGpuNoDeviceDescription) {
  WorkloadList list = sampleList();
  list.cuda_available = false;
  EXPECT_EQ(list.deviceDescription(), "");
}

std::string refusal(const std::string& text) {
  auto r = parseWorkloadList(text);
  return r ? "" : r.error().message;
}

nlohmann::json sampleJson() { return nlohmann::json::parse(toJson(sampleList())); }

TEST(WorkloadList, RefusesWhatIsNotAList) {
  EXPECT_EQ(refusal("not json"), "the workload list is not a JSON object");
  EXPECT_EQ(refusal("[1, 2]"), "the workload list is not a JSON object");
  EXPECT_EQ(refusal(std::string(kMaxWorkloadListBytes + 1, ' ')).rfind("the workload list is", 0), 0u);
  auto j = sampleJson();
  j.erase("version");
  EXPECT_EQ(refusal(j.dump()), "the workload list: 'version' is missing");
  j = sampleJson();
  j["version"] = kWorkloadListVersion + 1;
  EXPECT_NE(refusal(j.dump()).find("update Sawtooth"), std::string::npos);
  j = sampleJson();
  j["workloads"] = nlohmann::json::array();
  EXPECT_EQ(refusal(j.dump()), "the recorder lists no workloads");
  j = sampleJson();
  j["cuda_devices"] = -1;
  EXPECT_EQ(refusal(j.dump()), "the workload list: 'cuda_devices' is negative");
  j = sampleJson();
  j["cuda_available"] = "yes";
  EXPECT_EQ(refusal(j.dump()), "the workload list: 'cuda_available' has the wrong type");
}

TEST(WorkloadList, RefusesBrokenWorkloadsAndParameters) {
  auto j = sampleJson();
  j["workloads"][1]["name"] = "anatomy";
  EXPECT_EQ(refusal(j.dump()), "the workload list: workload 'anatomy' appears twice");
  j = sampleJson();
  j["workloads"][0]["parameters"][0]["type"] = "colour";
  EXPECT_EQ(refusal(j.dump()), "the workload list, workload 0, parameter 0: unknown parameter type 'colour'");
  j = sampleJson();
  j["workloads"][0]["parameters"][0]["default_cpu"] = "many";
  EXPECT_EQ(refusal(j.dump()), "the workload list, workload 0, parameter 0: default 'many' not a whole number");
  j = sampleJson();
  j["workloads"][0]["parameters"][2]["choices"] = {1, 2};
  EXPECT_EQ(refusal(j.dump()), "the workload list, workload 0, parameter 2: a choice is not a string");
  j = sampleJson();
  j["workloads"][0]["parameters"][1] = j["workloads"][0]["parameters"][0];
  EXPECT_EQ(refusal(j.dump()), "the workload list, workload 0: parameter 'layers' appears twice");
  j = sampleJson();
  j["workloads"][0].erase("parameters");
  EXPECT_EQ(refusal(j.dump()), "the workload list, workload 0: 'parameters' is not a list");
}

}  // namespace
}  // namespace sawtooth::recording
