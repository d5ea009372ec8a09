// SPDX-License-Identifier: MIT
#include "activityconverter.h"

#include "rawwriter.h"

#include "core/raw/rawformat.h"

namespace ws::inject::cupti {

namespace {

const char* overheadName(CUpti_ActivityOverheadKind k)
{
    switch (k) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
        return "driver JIT compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
        return "CUPTI buffer flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
        return "CUPTI instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
        return "CUPTI resource creation";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
        return "module loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
        return "lazy function loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
        return "command buffer full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
        return "activity buffer request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
        return "UVM activity init";
    default:
        return "unknown overhead";
    }
}

} // namespace

const RecordVersion kRecordVersions[8] = {
    {CUPTI_ACTIVITY_KIND_KERNEL, "KERNEL", "CUpti_ActivityKernel10", sizeof(CUpti_ActivityKernel10)},
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", "CUpti_ActivityKernel10",
        sizeof(CUpti_ActivityKernel10)},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", "CUpti_ActivityMemcpy6", sizeof(CUpti_ActivityMemcpy6)},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", "CUpti_ActivityMemset4", sizeof(CUpti_ActivityMemset4)},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", "CUpti_ActivityAPI", sizeof(CUpti_ActivityAPI)},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", "CUpti_ActivityAPI", sizeof(CUpti_ActivityAPI)},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", "CUpti_ActivitySynchronization2",
        sizeof(CUpti_ActivitySynchronization2)},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", "CUpti_ActivityOverhead3", sizeof(CUpti_ActivityOverhead3)},
};

ActivityConverter::ActivityConverter(RawWriter& writer, ConverterCache& cache, ActivityNames& names)
    : m_writer(writer)
    , m_cache(cache)
    , m_names(names)
{
}

uint32_t ActivityConverter::cachedName(const std::string& name)
{
    if (name.empty())
        return 0;
    auto it = m_cache.names.find(name);
    if (it == m_cache.names.end())
        it = m_cache.names.emplace(name, m_writer.intern(name)).first;
    return it->second;
}

void ActivityConverter::nameThread(int64_t tid)
{
    if (!m_cache.threadsNamed.emplace(tid, true).second)
        return;
    const std::string name = m_names.threadName(tid);
    if (name.empty())
        return;
    raw::ThreadNameRecord t {};
    t.tid = tid;
    t.name = m_writer.intern(name);
    m_writer.add(raw::RecordType::ThreadName, t);
}

void ActivityConverter::add(const CUpti_Activity* rec)
{
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        raw::KernelRecord r {};
        r.start = static_cast<int64_t>(k->start);
        r.end = static_cast<int64_t>(k->end);
        r.queued = static_cast<int64_t>(k->queued == CUPTI_TIMESTAMP_UNKNOWN ? 0 : k->queued);
        r.submitted = static_cast<int64_t>(k->submitted == CUPTI_TIMESTAMP_UNKNOWN ? 0 : k->submitted);
        r.graphNodeId = k->graphNodeId;
        r.deviceId = k->deviceId;
        r.contextId = k->contextId;
        r.streamId = k->streamId;
        r.correlationId = k->correlationId;
        r.name = cachedName(m_names.text(k->name));
        r.graphId = k->graphId;
        r.grid[0] = k->gridX;
        r.grid[1] = k->gridY;
        r.grid[2] = k->gridZ;
        r.block[0] = k->blockX;
        r.block[1] = k->blockY;
        r.block[2] = k->blockZ;
        r.cluster[0] = static_cast<int32_t>(k->clusterX);
        r.cluster[1] = static_cast<int32_t>(k->clusterY);
        r.cluster[2] = static_cast<int32_t>(k->clusterZ);
        r.registersPerThread = k->registersPerThread;
        r.staticSmem = k->staticSharedMemory;
        r.dynamicSmem = k->dynamicSharedMemory;
        r.localMemPerThread = static_cast<int32_t>(k->localMemoryPerThread);
        raw::appendFrame(m_out, raw::RecordType::Kernel, r);
        ++m_count;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
        raw::MemcpyRecord r {};
        r.start = static_cast<int64_t>(m->start);
        r.end = static_cast<int64_t>(m->end);
        r.bytes = static_cast<int64_t>(m->bytes);
        r.deviceId = m->deviceId;
        r.contextId = m->contextId;
        r.streamId = m->streamId;
        r.correlationId = m->correlationId;
        r.graphId = m->graphId;
        r.copyKind = m->copyKind;
        r.srcKind = m->srcKind;
        r.dstKind = m->dstKind;
        raw::appendFrame(m_out, raw::RecordType::Memcpy, r);
        ++m_count;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
        raw::MemsetRecord r {};
        r.start = static_cast<int64_t>(m->start);
        r.end = static_cast<int64_t>(m->end);
        r.bytes = static_cast<int64_t>(m->bytes);
        r.deviceId = m->deviceId;
        r.contextId = m->contextId;
        r.streamId = m->streamId;
        r.correlationId = m->correlationId;
        r.graphId = m->graphId;
        r.value = m->value;
        raw::appendFrame(m_out, raw::RecordType::Memset, r);
        ++m_count;
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(rec);
        const bool driver = rec->kind == CUPTI_ACTIVITY_KIND_DRIVER;
        raw::ApiRecord r {};
        r.start = static_cast<int64_t>(a->start);
        r.end = static_cast<int64_t>(a->end);
        r.tid = a->threadId;
        r.correlationId = a->correlationId;
        r.cbid = a->cbid;
        r.returnValue = static_cast<int32_t>(a->returnValue);
        r.domain = static_cast<uint8_t>(driver ? raw::ApiDomain::Driver : raw::ApiDomain::Runtime);
        const uint64_t key = (uint64_t {driver} << 32) | a->cbid;
        auto it = m_cache.apiNames.find(key);
        if (it == m_cache.apiNames.end()) {
            const std::string name = m_names.apiName(driver, a->cbid);
            it = m_cache.apiNames.emplace(key, m_writer.intern(name.empty() ? "unknown API" : name)).first;
        }
        r.name = it->second;
        nameThread(r.tid);
        raw::appendFrame(m_out, raw::RecordType::Api, r);
        ++m_count;
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto* y = reinterpret_cast<const CUpti_ActivitySynchronization2*>(rec);
        raw::SyncRecord r {};
        r.start = static_cast<int64_t>(y->start);
        r.end = static_cast<int64_t>(y->end);
        r.correlationId = y->correlationId;
        r.contextId = y->contextId;
        r.streamId = y->streamId;
        r.eventId = y->cudaEventId;
        r.type = static_cast<uint32_t>(y->type);
        raw::appendFrame(m_out, raw::RecordType::Sync, r);
        ++m_count;
        break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(rec);
        raw::OverheadRecord r {};
        r.start = static_cast<int64_t>(o->start);
        r.end = static_cast<int64_t>(o->end);
        r.tid = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o->objectId.pt.threadId : 0;
        r.kind = cachedName(overheadName(o->overheadKind));
        raw::appendFrame(m_out, raw::RecordType::Overhead, r);
        ++m_count;
        break;
    }
    default:
        break;
    }
}

void ActivityConverter::finish()
{
    m_writer.addPrepared(m_out, m_count);
    m_out.clear();
    m_count = 0;
}

} // namespace ws::inject::cupti
