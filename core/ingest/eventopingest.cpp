// SPDX-License-Identifier: MIT
#include "core/ingest/eventopingest.h"

#include "core/raw/rawformat.h"

#include <algorithm>

namespace ws {

EventOpRecord eventOpOf(const raw::StreamEventRecord& r, int64_t pid)
{
    EventOpRecord e;
    e.pid = pid;
    e.tid = r.tid;
    e.deviceId = r.deviceId;
    e.contextId = r.contextId;
    e.streamId = r.streamId;
    e.correlationId = r.correlationId;
    e.start = r.start;
    e.end = std::max(r.end, r.start);
    e.kind = r.op == static_cast<uint8_t>(raw::StreamEventOp::Wait)     ? EventOpKind::Wait
        : r.op == static_cast<uint8_t>(raw::StreamEventOp::Synchronize) ? EventOpKind::Synchronize
                                                                        : EventOpKind::Record;
    e.event = r.event;
    e.stream = r.stream;
    e.flags = r.flags;
    e.domain = r.domain == static_cast<uint8_t>(raw::ApiDomain::Driver) ? ApiDomain::Driver : ApiDomain::Runtime;
    e.cbid = static_cast<int32_t>(r.cbid);
    e.returnValue = r.returnValue;
    return e;
}

} // namespace ws
