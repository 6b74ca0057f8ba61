#pragma once
// Result files that another machine may have sent, read for compare and
// report: bounded before any use. The file must be a regular file (a FIFO
// would block, a device would never end) of at most max_result_file_bytes; the
// JSON may nest at most max_result_depth containers deep (the library's copies,
// comparisons and dumps recurse once per level); and every run's numbers must
// be what they claim to be (a time is finite and positive, the fastest
// repetition no slower than the median, no slower than the slowest; a figure of
// merit finite and not negative; the names free of control characters).
// Every refusal is one UsageError line naming the file.
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace ompref {

constexpr std::size_t max_result_file_bytes = std::size_t(64) << 20;
constexpr int max_result_depth = 64;

// The document, or a discarded value (json::value_t::discarded) when the text
// is not JSON. Throws UsageError for a file it may not read or a document too
// deep or too large.
nlohmann::json read_result_document(const std::string& path);

// The value checks of a result document that holds a "runs" list (types and
// ranges of the fields compare and report use); throws UsageError.
void check_result_values(const nlohmann::json& doc, const std::string& path);

}  // namespace ompref
