#include "codegen/launch_metadata.h"

#include <stdexcept>
#include <string>

namespace polyfuse {
namespace {

const char* kind_name(KernelParameter::Kind kind) {
  switch (kind) {
    case KernelParameter::Kind::input: return "input";
    case KernelParameter::Kind::output: return "output";
    case KernelParameter::Kind::size: return "size";
  }
  return "input";
}

KernelParameter::Kind parse_kind(const std::string& text) {
  if (text == "input") return KernelParameter::Kind::input;
  if (text == "output") return KernelParameter::Kind::output;
  if (text == "size") return KernelParameter::Kind::size;
  throw std::invalid_argument("launch metadata: parameter kind '" + text + "' is not input, output or size");
}

// json.at(key) with the key named in the error.
const nlohmann::json& field(const nlohmann::json& json, const char* key) {
  if (!json.is_object() || !json.contains(key))
    throw std::invalid_argument(std::string("launch metadata: missing field '") + key + "'");
  return json.at(key);
}

}  // namespace

nlohmann::json to_json(const LaunchMetadata& metadata) {
  nlohmann::json parameters = nlohmann::json::array();
  for (const KernelParameter& p : metadata.parameters) {
    nlohmann::json entry = {{"name", p.name}, {"kind", kind_name(p.kind)}, {"c_type", p.c_type}};
    if (p.kind != KernelParameter::Kind::size) {
      entry["element"] = std::string(to_string(p.element));
      entry["shape"] = p.shape;
      if (!p.tma_box.empty()) entry["tma_box"] = p.tma_box;
    }
    parameters.push_back(std::move(entry));
  }
  nlohmann::json grid = nlohmann::json::array();
  for (const GridDimension& g : metadata.grid) grid.push_back({{"value", g.value}, {"expression", g.expression}});
  nlohmann::json json = {
      {"kernel", metadata.kernel},
      {"launcher", metadata.launcher},
      {"arch", metadata.arch},
      {"parameters", std::move(parameters)},
      {"grid", std::move(grid)},
      {"block", {metadata.block[0], metadata.block[1], metadata.block[2]}},
      {"dynamic_shared_bytes", metadata.dynamic_shared_bytes},
      {"options", metadata.options},
  };
  if (metadata.persistent) json["persistent"] = true;
  if (metadata.cluster_x > 1) json["cluster_x"] = metadata.cluster_x;
  return json;
}

LaunchMetadata launch_metadata_from_json(const nlohmann::json& json) {
  try {
    LaunchMetadata m;
    m.kernel = field(json, "kernel").get<std::string>();
    m.launcher = json.value("launcher", std::string());
    m.arch = field(json, "arch").get<std::string>();
    for (const nlohmann::json& entry : field(json, "parameters")) {
      KernelParameter p;
      p.name = field(entry, "name").get<std::string>();
      p.kind = parse_kind(field(entry, "kind").get<std::string>());
      p.c_type = field(entry, "c_type").get<std::string>();
      if (p.kind != KernelParameter::Kind::size) {
        const std::string element = field(entry, "element").get<std::string>();
        const std::optional<ElementType> type = parse_element_type(element);
        if (!type) throw std::invalid_argument("launch metadata: unknown element type '" + element + "'");
        p.element = *type;
        p.shape = field(entry, "shape").get<std::vector<std::string>>();
        if (entry.contains("tma_box")) p.tma_box = entry["tma_box"].get<std::vector<int>>();
      }
      m.parameters.push_back(std::move(p));
    }
    const nlohmann::json& grid = field(json, "grid");
    const nlohmann::json& block = field(json, "block");
    if (!grid.is_array() || grid.size() != 3 || !block.is_array() || block.size() != 3)
      throw std::invalid_argument("launch metadata: 'grid' and 'block' must have three entries");
    for (int i = 0; i < 3; ++i) {
      m.grid[i].value = field(grid[i], "value").get<std::int64_t>();
      m.grid[i].expression = field(grid[i], "expression").get<std::string>();
      m.block[i] = block[i].get<int>();
    }
    m.dynamic_shared_bytes = field(json, "dynamic_shared_bytes").get<int>();
    m.options = json.value("options", std::string());
    m.persistent = json.value("persistent", false);
    m.cluster_x = json.value("cluster_x", 1);
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("launch metadata: ") + e.what());
  }
}

}  // namespace polyfuse
