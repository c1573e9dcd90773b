// A cluster-lab run kept as a file: what `microddp cluster --nodes N --nic
// RATE -- bench --backend mpi ... --json` measured on emulated hosts
// (network namespaces, tbf-shaped NICs; app/cli/cmd_cluster.cpp), with the
// machine, the date and the command, so that a machine without namespaces
// (a lecture laptop) can show and check a network measurement that it
// cannot make. The window's Compare view plots it (source "recorded",
// app/viz/compare_sources.h) and lesson checks read it (`recorded_faster`).
//
// File (JSON object; lessons/data/lab-*.json):
//   date, machine, command, collective, nic   strings (machine as lscpu names it)
//   nodes, ranks_per_node                     whole numbers, 1..kMaxRecordRanks
//   nic_check, predicted, recorded            strings (optional)
//   log                                       array of strings (optional: the lab's own lines)
//   rows  array of bench's --json rows, at least: algorithm (string),
//         bytes (nccl-tests' size S, B), time_us (the median timed
//         iteration, µs); optional count, samples, min_us, p10_us, p90_us,
//         max_us, predicted_us (the lab model's time, µs; null = none).
//         bytes, count and samples are whole numbers (ranges below);
//         min_us, p10_us, p90_us, max_us and predicted_us are above 0 µs
//         (or null); min_us <= p10_us <= time_us <= p90_us <= max_us
//         where stated; a row's own world_size, nodes and collective
//         (bench prints them) equal the record's when stated.
//         nodes x ranks_per_node is at most kMaxRecordRanks.
// The same rows, one object a line, are what the live lab prints
// (parse_bench_json_lines).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace microddp {

// The ranges a record's fields are read in (larger or fractional values are
// refused, naming the field): nodes and ranks_per_node 1..kMaxRecordRanks,
// bytes 1..kMaxRecordBytes (1 TiB, the lessons' largest size), count
// 0..kMaxRecordBytes, samples 0..kMaxRecordSamples.
inline constexpr int64_t kMaxRecordRanks = 65536, kMaxRecordBytes = int64_t{1} << 40, kMaxRecordSamples = 1000000000;

struct LabRecordRow {
  std::string algorithm;
  int64_t bytes = 0, count = 0;  // S (bytes), elements per rank
  double time_us = 0;            // median of the timed iterations, µs
  int samples = 0;               // timed iterations (0 = not stated)
  double min_us = -1, p10_us = -1, p90_us = -1, max_us = -1;  // -1 = not stated
  double predicted_us = -1;      // the lab model's time, µs; -1 = none
};

struct LabRecord {
  std::string path, date, machine, command, collective = "all_reduce", nic, nic_check, predicted;
  int nodes = 0, ranks_per_node = 1;
  std::vector<LabRecordRow> rows;
  int world_size() const { return nodes * ranks_per_node; }
  // The algorithms of the rows, in the order they first appear.
  std::vector<std::string> algorithms() const;
  // The row of `algorithm` at `bytes`, or nullptr.
  const LabRecordRow* row(const std::string& algorithm, int64_t bytes) const;
  // "8 nodes x 1 rank, NIC 1gbit" (what the run emulated).
  std::string setup_text() const;
};

// Parses a recorded run (`path` names it in errors). Throws UsageError
// naming the file and the missing or bad field ("FILE: rows[3].time_us: ..."),
// a collective microddp does not know, or a row of an algorithm that does not
// serve it ("FILE: rows[0].algorithm: unknown algorithm 'x' for all_reduce
// (expected one of: ...)"), or a second row of one algorithm at one size
// ("FILE: rows[20]: a second row of tree at 16777216 bytes (the first is rows[19])"),
// a row's world_size, nodes or collective other than the record's
// ("FILE: rows[0].world_size: 2, but the record's nodes x ranks_per_node is 8"),
// a spread out of order ("FILE: rows[0]: min_us 9e+09 is above p10_us 356017"),
// a negative or zero time. Reads n rows in O(n log n).
LabRecord parse_lab_record(std::string_view text, const std::string& path);
// Reads the file (UsageError naming it when missing, unreadable or not a
// regular file: "recorded lab run 'PATH': is a character device, not a
// regular file") and parses it.
LabRecord load_lab_record(const std::string& path);
// bench --json output: one JSON object a line (other lines, such as the
// lab's "cluster: ..." and bench's "# ..." lines, are skipped). Throws
// UsageError naming `what` and the line when an object lacks a field.
std::vector<LabRecordRow> parse_bench_json_lines(std::string_view text, const std::string& what);

}  // namespace microddp
