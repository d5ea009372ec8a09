// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"
#include "core/raw/rawreader.h"

#include <string>
#include <vector>

namespace ws {

// `record --gpu-metrics`: the PM sampling records of one process's raw file become one counter
// track per (device, metric), under that GPU on the timeline, with one sample per interval at
// its start (a counter holds its value until the next sample). The first interval of each
// device is dropped: it spans the time from before sampling started (887 ms on the H200) and
// its values average over that. Intervals are sorted by start; an interval whose value count
// does not match the metrics defined for its device is skipped and counted in a warning.
// Adds meta gpu_metrics.* (samples, dropped, period) when the file held any.
void appendGpuMetrics(const raw::RawFile& file, SessionData& session, std::vector<std::string>& warnings);

} // namespace ws
