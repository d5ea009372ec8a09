// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"
#include "core/report/reporttable.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ws {

// How much GPU-to-GPU communication hides behind compute (data-parallel training overlaps
// the gradient all-reduce of one bucket with the backward pass of the next).
//
// On one device, communication is the union of the intervals of NCCL kernels and peer copies
// (commkernels.h) and compute the union of every other kernel; host<->device copies and
// memsets count as neither. overlap = |comm ∩ compute| in ns, exact: unions and the
// intersection are taken on the integer intervals [start, end), so a nanosecond counts once
// however many streams are busy in it. overlap % = overlap / comm; exposed = comm - overlap,
// the communication time nothing computes under.
struct CommOverlapRow {
    uint32_t deviceId = 0;
    int64_t pid = -1;  // -1: every process on the device together
    int64_t rank = -1; // RANK of the process (commranks.h), -1 when unknown or pid == -1
    int64_t commOps = 0;
    int64_t computeKernels = 0;
    TimeNs commNs = 0;
    TimeNs computeNs = 0;
    TimeNs overlapNs = 0;
    TimeNs exposedCommNs() const { return commNs - overlapNs; }
    // -1 when there is no communication at all.
    double overlapPct() const
    {
        return commNs > 0 ? 100.0 * static_cast<double>(overlapNs) / static_cast<double>(commNs) : -1.0;
    }
};

// One row per (device, process) with any kernel or peer copy, ordered by device then pid;
// a device that several processes used gets an all-processes row (pid -1) before them.
// Devices are told apart by the ordinal the recording process used (device_id).
std::vector<CommOverlapRow> analyzeCommOverlap(const RecordSource& source);

// comm_overlap: DevId, PID, Rank, Comm Ops, Comm Time, Compute Kernels, Compute Time,
// Overlap Time, Overlap (%), Exposed Comm. PID is NULL on an all-processes row, Rank when
// unknown, Overlap (%) when there is no communication.
ReportTable commOverlap(const RecordSource& source);

// Interval arithmetic of the report, exposed for tests. Intervals are [first, second).
using TimeInterval = std::pair<TimeNs, TimeNs>;
// Sorted, disjoint, non-adjacent; empty and reversed intervals dropped.
std::vector<TimeInterval> intervalUnion(std::vector<TimeInterval> intervals);
TimeNs intervalLength(const std::vector<TimeInterval>& merged);
// Length of the intersection of two intervalUnion() results (one linear sweep).
TimeNs intersectionLength(const std::vector<TimeInterval>& a, const std::vector<TimeInterval>& b);

} // namespace ws
