// SPDX-License-Identifier: MIT
#include "core/store/schema.h"

namespace ws::schema {

std::string_view createStatements()
{
    // Times: INTEGER nanoseconds, CLOCK_MONOTONIC of the recording host.
    // No indexes beyond primary keys: the viewer reads whole tables into memory, and the
    // lane cache (lane_blob) makes re-opening fast; indexes would cost 64% of file size.
    static constexpr std::string_view ddl = R"SQL(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE environment(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE string(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE process(pid INTEGER PRIMARY KEY, name TEXT NOT NULL, command_line TEXT NOT NULL,
  exit_code INTEGER NOT NULL, exit_signal INTEGER NOT NULL, anchor_realtime_ns INTEGER NOT NULL,
  anchor_monotonic_ns INTEGER NOT NULL, parent_pid INTEGER NOT NULL);
CREATE TABLE thread(pid INTEGER NOT NULL, tid INTEGER NOT NULL, name TEXT NOT NULL,
  PRIMARY KEY(pid, tid)) WITHOUT ROWID;
CREATE TABLE device(id INTEGER NOT NULL, pid INTEGER NOT NULL, name TEXT NOT NULL, uuid TEXT NOT NULL,
  cc_major INTEGER NOT NULL, cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL,
  sm_clock_khz INTEGER NOT NULL, sm_clock_max_khz INTEGER NOT NULL, mem_clock_khz INTEGER NOT NULL,
  mem_bus_width_bits INTEGER NOT NULL, l2_bytes INTEGER NOT NULL, global_mem_bytes INTEGER NOT NULL,
  regs_per_sm INTEGER NOT NULL, regs_per_block INTEGER NOT NULL, smem_per_sm INTEGER NOT NULL,
  smem_per_block INTEGER NOT NULL, smem_per_block_optin INTEGER NOT NULL,
  smem_reserved_per_block INTEGER NOT NULL, max_warps_per_sm INTEGER NOT NULL,
  max_blocks_per_sm INTEGER NOT NULL, max_threads_per_block INTEGER NOT NULL, warp_size INTEGER NOT NULL,
  dram_bw_bytes_per_s REAL NOT NULL, peak_fp32_flops REAL NOT NULL, peak_fp64_flops REAL NOT NULL,
  peak_fp16_tensor_flops REAL NOT NULL, peak_bf16_tensor_flops REAL NOT NULL,
  peak_fp8_tensor_flops REAL NOT NULL, peak_tf32_tensor_flops REAL NOT NULL,
  l2_bw_bytes_per_s REAL NOT NULL, l1_bw_bytes_per_s REAL NOT NULL,
  PRIMARY KEY(pid, id)) WITHOUT ROWID;
CREATE TABLE stream(pid INTEGER NOT NULL, device_id INTEGER NOT NULL, context_id INTEGER NOT NULL,
  stream_id INTEGER NOT NULL, priority INTEGER NOT NULL, label TEXT NOT NULL,
  PRIMARY KEY(pid, device_id, stream_id)) WITHOUT ROWID;
CREATE TABLE kernel(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device_id INTEGER NOT NULL,
  context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
  start INTEGER NOT NULL, end INTEGER NOT NULL, queued INTEGER NOT NULL, submitted INTEGER NOT NULL,
  mangled_name INTEGER NOT NULL, demangled_name INTEGER NOT NULL, short_name INTEGER NOT NULL,
  grid_x INTEGER NOT NULL, grid_y INTEGER NOT NULL, grid_z INTEGER NOT NULL,
  block_x INTEGER NOT NULL, block_y INTEGER NOT NULL, block_z INTEGER NOT NULL,
  cluster_x INTEGER NOT NULL, cluster_y INTEGER NOT NULL, cluster_z INTEGER NOT NULL,
  registers_per_thread INTEGER NOT NULL, static_smem INTEGER NOT NULL, dynamic_smem INTEGER NOT NULL,
  local_mem_per_thread INTEGER NOT NULL, graph_id INTEGER NOT NULL, graph_node_id INTEGER NOT NULL);
CREATE TABLE memcpy(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device_id INTEGER NOT NULL,
  context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
  start INTEGER NOT NULL, end INTEGER NOT NULL, bytes INTEGER NOT NULL, copy_kind INTEGER NOT NULL,
  src_kind INTEGER NOT NULL, dst_kind INTEGER NOT NULL, graph_id INTEGER NOT NULL);
CREATE TABLE memset(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device_id INTEGER NOT NULL,
  context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
  start INTEGER NOT NULL, end INTEGER NOT NULL, bytes INTEGER NOT NULL, value INTEGER NOT NULL,
  graph_id INTEGER NOT NULL);
CREATE TABLE api_call(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL,
  domain INTEGER NOT NULL, cbid INTEGER NOT NULL, name INTEGER NOT NULL, return_value INTEGER NOT NULL);
CREATE TABLE nvtx_range(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  end_tid INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, name INTEGER NOT NULL,
  domain INTEGER NOT NULL, category INTEGER NOT NULL, color INTEGER NOT NULL, style INTEGER NOT NULL,
  depth INTEGER NOT NULL);
CREATE TABLE nvtx_mark(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  ts INTEGER NOT NULL, name INTEGER NOT NULL, domain INTEGER NOT NULL, category INTEGER NOT NULL,
  color INTEGER NOT NULL);
CREATE TABLE sync(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  device_id INTEGER NOT NULL, context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, kind INTEGER NOT NULL,
  event_id INTEGER NOT NULL);
CREATE TABLE overhead(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  start INTEGER NOT NULL, end INTEGER NOT NULL, kind INTEGER NOT NULL);
CREATE TABLE metric_def(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL,
  section TEXT NOT NULL, description TEXT NOT NULL);
CREATE TABLE kernel_metric(kernel_id INTEGER NOT NULL, metric_id INTEGER NOT NULL, value REAL NOT NULL,
  PRIMARY KEY(kernel_id, metric_id)) WITHOUT ROWID;
CREATE TABLE counter_track(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, device_id INTEGER NOT NULL,
  name TEXT NOT NULL, unit TEXT NOT NULL);
CREATE TABLE counter_sample(track_id INTEGER NOT NULL, ts INTEGER NOT NULL, value REAL NOT NULL);
CREATE TABLE bench_run(id INTEGER PRIMARY KEY, workload TEXT NOT NULL, implementation TEXT NOT NULL,
  boundary TEXT NOT NULL, timer TEXT NOT NULL, cache_policy TEXT NOT NULL, unit TEXT NOT NULL,
  options_json TEXT NOT NULL, work_flops REAL NOT NULL, work_bytes REAL NOT NULL);
CREATE TABLE bench_sample(run_id INTEGER NOT NULL, round INTEGER NOT NULL, call INTEGER NOT NULL,
  value REAL NOT NULL);
CREATE TABLE warp_event(id INTEGER PRIMARY KEY, kernel_id INTEGER NOT NULL, block INTEGER NOT NULL,
  warp INTEGER NOT NULL, sm INTEGER NOT NULL, role INTEGER NOT NULL, name INTEGER NOT NULL,
  kind INTEGER NOT NULL, t_begin INTEGER NOT NULL, t_end INTEGER NOT NULL, depth INTEGER NOT NULL);
CREATE TABLE sass_function(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, cubin_crc INTEGER NOT NULL,
  name INTEGER NOT NULL, disassembler TEXT NOT NULL);
CREATE TABLE sass_instruction(function_id INTEGER NOT NULL, pc_offset INTEGER NOT NULL, text TEXT NOT NULL,
  file INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY(function_id, pc_offset)) WITHOUT ROWID;
CREATE TABLE source_counter(kernel_id INTEGER NOT NULL, function_id INTEGER NOT NULL,
  pc_offset INTEGER NOT NULL, counter INTEGER NOT NULL, value INTEGER NOT NULL,
  PRIMARY KEY(kernel_id, function_id, pc_offset, counter)) WITHOUT ROWID;
CREATE TABLE source_file(id INTEGER PRIMARY KEY, path INTEGER NOT NULL, text TEXT NOT NULL);
CREATE TABLE lane_blob(lane_key TEXT PRIMARY KEY, format INTEGER NOT NULL, data BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE table_check(table_name TEXT PRIMARY KEY, row_count INTEGER NOT NULL,
  content_hash INTEGER NOT NULL) WITHOUT ROWID;
)SQL";
    return ddl;
}

} // namespace ws::schema
