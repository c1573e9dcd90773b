// Building per-rank input data: from text ("1,2,3;4,5,6"), from a JSON
// file ({"inputs": [[...], ...]}), or from a fill pattern. Values are
// checked against the dtype (store_double's rules). Shapes follow
// CollectiveSpec::input_count. All errors are UsageError naming the value.
#pragma once
#include <optional>
#include <string>

#include "core/ir/schedule.h"

namespace microddp {

// "1,2,3;4,5,6;7,8,9": one row per rank, ';' between ranks, ',' between
// values; a rank without input has an empty row. "nan", "inf", "-inf" are
// accepted for floating dtypes.
RankData parse_data(const CollectiveSpec& s, const std::string& text);
// JSON text {"inputs": [[1,2],[3,4]]}; NaN/inf as the strings "nan", "inf", "-inf".
RankData parse_input_json(const CollectiveSpec& s, const std::string& json_text);
// "iota" (rank r, element i: (r*count_r + i) mod 1000 + 1 for every dtype:
// exact in float16, and sums of them exact in float32 in any order; bfloat16
// rounds values above 256), "rank" (every element r+1), "random:SEED" (small integers
// -8..8 from a seeded generator, exact in every dtype and op).
RankData fill_data(const CollectiveSpec& s, const std::string& pattern);

// A count option's text as the user typed it ("8"): a non-negative decimal
// integer that fits int64. Throws UsageError "<option> '<text>' ..." otherwise.
int64_t parse_count_text(const std::string& option, const std::string& text);
// "a,b,c": non-negative counts, no empty entries, and a sum that fits int64.
// Throws UsageError naming the option and the entry (or the sum) as typed.
std::vector<int64_t> parse_counts_text(const std::string& option, const std::string& text);

// For JSON output: element i as a JSON-ready value (number, or the strings
// "nan", "inf", "-inf").
std::string format_value(double v);

// Infer the count from --data rows when the user gave none: the length of
// the first non-empty row, adjusted to the collective's shape (e.g. divided
// by n for reduce_scatter / all_to_all / scatter's root row).
int64_t count_from_rows(const CollectiveSpec& s, const std::string& text);
// The same for an --input JSON file's rows (-1 when the text is not of the
// documented form; parse_input_json then says what is wrong).
int64_t count_from_json(const CollectiveSpec& s, const std::string& json_text);

// The element count of a run whose count was not given, as `microddp run`
// infers it: from the --data rows when `data` is non-empty
// (count_from_rows), else from the --input JSON text when non-empty
// (count_from_json, 0 when malformed), else `fallback`. s.count is ignored;
// s.collective and s.world_size must be set.
int64_t infer_count(const CollectiveSpec& s, const std::string& data, const std::string& input_json,
                    int64_t fallback);
// The per-rank inputs of a run as `microddp run` builds them: parse_data
// when `data` is non-empty, else parse_input_json when an input file's text
// is given (even empty: that is an error), else fill_data with `fill`
// ("iota" when empty). Throws the UsageError of the function it calls.
RankData make_inputs(const CollectiveSpec& s, const std::string& data, const std::optional<std::string>& input_json,
                     const std::string& fill);

}  // namespace microddp
