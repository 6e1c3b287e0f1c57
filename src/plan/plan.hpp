// The plan IR: what rules see of Spark's plan text. Built by tree_builder.cpp, never by rules.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace planlint::plan {

// Which tree of an EXPLAIN output a node belongs to.
enum class Section : std::uint8_t { parsed_logical, analyzed_logical, optimized_logical, physical, codegen_subtree };
std::string_view to_string(Section section);

// 1-based line and column in the file as the user has it; end_column is exclusive.
struct Span {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t end_column = 0;
};

// `name#id` as Spark prints an AttributeReference; id is "x" in normalised golden files.
struct AttributeRef {
  std::string name;
  std::string id;
  bool is_long = false;
  [[nodiscard]] std::string text() const;
  [[nodiscard]] bool same_attribute(const AttributeRef& other) const;
  friend bool operator==(const AttributeRef&, const AttributeRef&) = default;
};

// What an operator is, with vendor prefixes (Photon, Gpu, Comet, ...) and suffixes (Exec, Transformer) removed.
enum class OpKind : std::uint8_t {
  other,
  shuffle_exchange,
  broadcast_exchange,
  reused_exchange,
  join,
  filter,
  project,
  aggregate,
  file_scan,
  local_table_scan,
  rdd_scan,  // rows of an RDD (`Scan ExistingRDD`) or objects from the driver (`Scan[obj#1]`, ExternalRDDScan)
  range,
  python_eval,
  window,
  sort,
  adaptive_plan,
  query_stage,
  shuffle_read,
  subquery,
};
std::string_view to_string(OpKind kind);

enum class Partitioning : std::uint8_t { unknown, hash, range, round_robin, single };
std::string_view to_string(Partitioning partitioning);

struct ExchangeInfo {
  Partitioning partitioning = Partitioning::unknown;
  std::vector<std::string> keys;  // expressions as printed
  std::vector<AttributeRef> key_refs;
  std::optional<std::int64_t> num_partitions;
  std::string origin;  // ENSURE_REQUIREMENTS, REPARTITION_BY_COL, REPARTITION_BY_NUM, ... or empty
};

struct JoinInfo {
  std::string
      strategy;  // SortMergeJoin, ShuffledHashJoin, BroadcastHashJoin, BroadcastNestedLoopJoin, CartesianProduct, Join
  std::string join_type;  // Inner, LeftOuter, ...
  std::vector<std::string> left_keys, right_keys;
  std::vector<AttributeRef> left_refs, right_refs;
  std::string condition;   // non-equi condition, empty when none
  std::string build_side;  // BuildLeft / BuildRight / empty
};

struct FilterInfo {
  std::string condition;
  std::vector<AttributeRef> refs;
};

struct ProjectInfo {
  std::string text;  // the projection list as printed ("[a#1, (b#2 + 1) AS c#3]")
  // Its items, split when asked: a plan has many projections and few rules read them.
  [[nodiscard]] std::vector<std::string> list() const;
};

struct AggregateInfo {
  bool grouped = true;  // false only when the plan shows there are no grouping keys (one output row)
  std::vector<std::string> keys;
  std::vector<std::string> functions;
  std::vector<AttributeRef> key_refs;
};

struct ScanInfo {
  std::string format;  // parquet, orc, csv, ExistingRDD, ...
  std::string table;
  std::vector<AttributeRef> output;
  std::vector<std::string> pushed_filters, partition_filters, data_filters;
  std::string read_schema;
  std::string location;
  bool prints_pushed_filters = false;  // the scan reports PushedFilters at all
  // Spark cut the list with "..." (a long value): the filters after the cut are not known.
  bool pushed_cut = false, partition_cut = false, data_cut = false;
};

struct PythonEvalInfo {
  std::vector<std::string> udf_calls;  // "f(a#1)#10"
  std::vector<std::string> udf_names;  // "f"
  std::vector<AttributeRef> outputs;   // pythonUDF0#20
};

struct WindowInfo {
  std::vector<std::string> expressions, partition_spec, order_spec;
};

struct Statistics {
  std::optional<double> size_in_bytes;
  std::optional<std::int64_t> row_count;
};

using OperatorFields = std::variant<std::monostate, ExchangeInfo, JoinInfo, FilterInfo, ProjectInfo, AggregateInfo,
                                    ScanInfo, PythonEvalInfo, WindowInfo>;

// Which AQE plan a child of AdaptiveSparkPlan heads ("+- == Final Plan ==" and so on).
enum class AqeRole : std::uint8_t { none, final_plan, initial_plan, current_plan };
std::string_view to_string(AqeRole role);

struct PlanNode {
  std::string name;  // operator name as printed, markers removed: "HashAggregate", "Scan", "PhotonShuffleExchangeSink"
  OpKind kind = OpKind::other;
  std::string args;                                          // raw argument text after the name
  std::vector<std::pair<std::string, std::string>> details;  // formatted mode: "Output" -> "[a#1]", ...
  std::optional<int> codegen_stage;
  std::optional<int> operator_id;  // formatted mode "(n)"; simplified form's "#n" reuse number is in args
  bool unresolved = false;
  bool fallback = false;  // RAPIDS "!": cannot run on the accelerator
  bool is_subquery_child = false;
  AqeRole aqe_role = AqeRole::none;
  Section section = Section::physical;
  Span span;
  PlanNode* parent = nullptr;
  std::vector<PlanNode*> children;
  std::vector<PlanNode*> subqueries;
  OperatorFields fields;
  Statistics stats;

  [[nodiscard]] const std::string* detail(std::string_view key) const;
  template <typename T>
  [[nodiscard]] const T* as() const {
    return std::get_if<T>(&fields);
  }
};

struct SectionTree {
  Section section = Section::physical;
  std::uint32_t header_line = 0;  // 0 when the plan had no header
  std::vector<PlanNode*> roots;
  std::string schema;  // Analyzed Logical Plan's output schema line
};

// Which Spark versions a plan's text could come from, read from its format markers (`*(n)` codegen
// ids: 2.3+, `[id=#n]` exchange ids: 3.0-3.3, ENSURE_REQUIREMENTS: 3.1+, `[plan_id=n]`: 3.4+, ...).
// Versions are major * 100 + minor (3.2 -> 302).
struct VersionGuess {
  int min = 0;                        // 0: no lower bound known
  int max = 9999;                     // 9999: no upper bound known
  bool databricks = false;            // Photon operators: a Databricks runtime (AQE on by default)
  bool from_target = false;           // set by target-spark-version, not read from the plan
  std::vector<std::string> evidence;  // "[plan_id=n] (3.4+)", ...
  [[nodiscard]] bool known() const { return min > 0 || max < 9999 || databricks; }
  [[nodiscard]] bool at_least(int major, int minor) const { return min >= major * 100 + minor; }
  [[nodiscard]] bool before(int major, int minor) const { return max < major * 100 + minor; }
  [[nodiscard]] std::string text() const;  // "3.4+", "3.0-3.3", "2.0-2.2", "Databricks (Photon)", "unknown"
};

// One EXPLAIN output; a file may hold several.
struct Plan {
  std::uint32_t first_line = 0;
  bool formatted = false;
  bool simplified = false;  // TPC-DS simplified.txt form
  std::vector<SectionTree> sections;
  std::vector<std::pair<int, PlanNode*>> subqueries;  // formatted "Subquery:N" roots
  std::string photon_explanation;
  VersionGuess version;    // from the plan's format markers
  bool streaming = false;  // a Structured Streaming query (state stores, streaming sources or sinks)

  [[nodiscard]] const SectionTree* find(Section section) const;
  [[nodiscard]] const SectionTree* physical() const { return find(Section::physical); }
};

struct ParseError {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::string message;
};

struct Document {
  std::string path;
  std::deque<PlanNode> nodes;  // owns every node; deque keeps pointers stable
  std::vector<Plan> plans;
  std::vector<ParseError> errors;
  std::size_t operator_lines = 0;           // tree lines that became nodes
  std::shared_ptr<const std::string> text;  // the file's text (a stable address: lines point into it)
  std::vector<std::string_view> lines;      // the file's lines without their line breaks
};

// Parse plan text. Never throws on bad input: unreadable lines become errors and the rest is still built.
Document parse_document(std::string text, std::string path);

// The same, one plan at a time: each plan is handed to `sink` as soon as it is complete (its nodes
// analysed, its facts inferred) and freed afterwards, so a file of thousands of plans needs the
// memory of one. The returned document has the errors, lines and text, and no plans or nodes.
using PlanSink = std::function<void(const Document&, const Plan&)>;
Document parse_document_streamed(std::string text, std::string path, const PlanSink& sink);

// Visit every node of a tree (children and subqueries) in pre-order.
template <typename F>
void for_each_node(const PlanNode* root, F&& f) {
  std::vector<const PlanNode*> stack{root};
  while (!stack.empty()) {
    const PlanNode* n = stack.back();
    stack.pop_back();
    f(*n);
    for (auto it = n->subqueries.rbegin(); it != n->subqueries.rend(); ++it) stack.push_back(*it);
    for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) stack.push_back(*it);
  }
}

}  // namespace planlint::plan
