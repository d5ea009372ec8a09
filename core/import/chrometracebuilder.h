// SPDX-License-Identifier: MIT
#pragma once

#include "core/import/chrometraceevent.h"
#include "core/import/importer.h"
#include "core/import/nvtxrangeorder.h"
#include "core/model/sessiondata.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ws {

// Turns Chrome-trace / Kineto events, fed one at a time in file order, into session tables.
// Kineto's categories map onto the recorder's tables (kernel, gpu_memcpy, gpu_memset,
// cuda_runtime, cuda_driver, cuda_sync, overhead); annotations, CPU ops and the events of
// any other Chrome trace become NVTX-like ranges and marks on their thread, counters ("C")
// become counter tracks. GPU work carries the device as pid in Kineto; it is given back to the
// host process that launched it through the correlation id.
class ChromeTraceBuilder {
public:
    explicit ChromeTraceBuilder(const ImportOptions& options);

    void add(const ChromeTraceEvent& event);
    void addDevice(DeviceInfo device);
    // A scalar at the top level of the file (schemaVersion, baseTimeNanoseconds, traceName...).
    void addTopLevel(std::string_view key, std::string_view value);

    int64_t eventCount() const { return m_events; }

    // The input's size, when known, before the first event: the range table is reserved for
    // the most ranges a file of that size can hold at ~100 bytes an event, so a 10M-range trace
    // does not grow it by doubling (each step copies the table and faults in fresh pages; the
    // last one holds both copies at once). Capacity beyond what is filled is address space only.
    void expectBytes(size_t bytes);

    // Hands NVTX ranges to `sink` as their ids become final (NvtxRangeOrder) and the rest in
    // finish(), unless the file breaks the order streaming relies on or holds a range whose row
    // changes in finish() (GPU annotations): then the sink is told to discard what it got, and
    // finish() returns every range to be ordered as usual. Call before the first event.
    void streamRangesTo(NvtxRangeSink& sink, NvtxRangeOrder::Limits limits = {});
    // After finish(): every range went to the sink (finishImport must not order them again).
    bool rangesStreamed() const { return m_streamed; }

    // Resolves host processes, closes ranges left open, fills names. Call once.
    SessionData finish();

private:
    enum class Category : uint8_t {
        Kernel,
        Memcpy,
        Memset,
        Runtime,
        Driver,
        Sync,
        GpuAnnotation,
        UserAnnotation,
        CpuOp,
        Overhead,
        Other,
    };
    struct HashView {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view> {}(s); }
    };
    using StringCache = std::unordered_map<std::string, StringId, HashView, std::equal_to<>>;

    StringId intern(std::string_view s);
    StringId shortNameOf(StringId demangled);
    Category categoryOf(std::string_view cat);
    int64_t idOf(const TraceId& id, bool isPid);
    void addComplete(const ChromeTraceEvent& e, Category category, int64_t pid, int64_t tid);
    void addRange(int64_t pid, int64_t tid, TimeNs start, TimeNs end, StringId name, StringId domain,
        NvtxStyle style = NvtxStyle::PushPop, int64_t endTid = 0);
    void addCounter(const ChromeTraceEvent& e, int64_t pid);
    void noteTime(TimeNs t);
    void handOutRanges();
    void stopStreaming(const char* why);
    void noteCpuPid(int64_t pid);

    const ImportOptions& m_options;
    SessionData m_data;
    StringCache m_strings;
    std::unordered_map<StringId, StringId> m_shortNames;
    std::string m_lastCat;
    Category m_lastCategory = Category::Other;
    StringId m_lastCatId = 0;
    int64_t m_lastCpuPid = 0;
    bool m_haveLastCpuPid = false;
    bool m_haveLastCat = false;

    std::unordered_map<std::string, int64_t> m_namedIds; // string pid/tid -> synthetic id
    std::map<int64_t, std::string> m_processNames;
    std::map<int64_t, std::string> m_processLabels; // Kineto's process_labels ("CPU", "GPU 0")
    std::map<std::pair<int64_t, int64_t>, std::string> m_threadNames;
    std::vector<int64_t> m_cpuPidsInOrder; // pids of host-side events, first seen first
    std::unordered_map<int64_t, bool> m_cpuPids;
    std::unordered_map<int64_t, bool> m_gpuPids;

    struct OpenRange {
        TimeNs start;
        StringId name;
        StringId domain;
        int64_t tid;
    };
    std::map<std::pair<int64_t, int64_t>, std::vector<OpenRange>> m_openBegins;                  // B/E per thread
    std::map<std::tuple<int64_t, std::string, std::string>, std::vector<OpenRange>> m_openAsync; // b/e
    std::map<std::pair<int64_t, std::string>, uint32_t> m_counterTracks;

    // Records whose host pid (and for syncs the thread) is known only once every API call has
    // been read: indices into the tables.
    std::vector<size_t> m_gpuAnnotationRanges;
    std::vector<size_t> m_overheadsWithoutPid;
    std::vector<std::pair<size_t, int64_t>> m_syncs;                          // index, GPU pid
    std::map<std::tuple<uint32_t, uint32_t>, int64_t> m_gpuAnnotationThreads; // (device, stream) -> tid

    // Streaming (streamRangesTo): the order of the ranges read so far, and where they go.
    NvtxRangeSink* m_sink = nullptr;
    std::unique_ptr<NvtxRangeOrder> m_order;
    bool m_streamed = false;

    TimeNs m_lastTime = 0;
    bool m_haveTime = false;
    int64_t m_events = 0;
    std::map<std::string, int64_t> m_skipped; // why -> count, reported in meta
};

} // namespace ws
