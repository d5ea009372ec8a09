// SPDX-License-Identifier: MIT
#pragma once

// The raw record format: what the injection library streams out of a traced process and the
// launcher ingests into a session. Header-only, plain C++ with no dependencies, because it is
// compiled into libwarpscope-inject.so, which runs inside arbitrary CUDA programs and must not
// drag SQLite, Qt or core's other code in.
//
// A raw file is a FileHeader followed by frames. A frame is a FrameHeader (payload size and
// type) followed by `size` payload bytes: a fixed POD struct of the type, optionally followed by
// trailing bytes (strings). Frames are appended with write(2) and never rewritten, so a process
// that dies mid-write leaves at worst one truncated last frame; the reader stops there.
//
// Compatibility: a reader copies min(payload, sizeof(struct)) bytes and zero-fills the rest, so
// fields may be appended to a struct without bumping kFormatVersion. Times are nanoseconds of
// CLOCK_MONOTONIC (the injection library registers that clock with CUPTI).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace ws::raw {

inline constexpr char kMagic[8] = {'W', 'S', 'R', 'A', 'W', '\r', '\n', '\x1a'};
inline constexpr uint32_t kFormatVersion = 1;
// Raw files are named <kFilePrefix><pid><kFileSuffix> inside the raw directory.
inline constexpr std::string_view kFilePrefix = "ws-";
inline constexpr std::string_view kFileSuffix = ".raw";
// Environment variables the launcher sets for the injection library.
inline constexpr const char* kEnvRawDir = "WS_RAW_DIR";
inline constexpr const char* kEnvTrace = "WS_TRACE";                // comma list: cuda,nvtx
inline constexpr const char* kEnvAllApi = "WS_ALL_API";             // "1": keep every API call
inline constexpr const char* kEnvCaptureRange = "WS_CAPTURE_RANGE"; // cudaProfilerApi | nvtx:NAME
inline constexpr const char* kEnvDuration = "WS_DURATION_S";        // stop collecting after S seconds
inline constexpr const char* kEnvBufferBytes = "WS_CUPTI_BUFFER_BYTES";
// CUPTI configuration knobs, for measuring what each setting costs (defaults in RecorderConfig):
inline constexpr const char* kEnvThreadIds = "WS_CUPTI_THREAD_IDS";  // system (gettid) | default (pthread_self)
inline constexpr const char* kEnvTimestamps = "WS_CUPTI_TIMESTAMPS"; // monotonic | cupti (CLOCK_REALTIME)
inline constexpr const char* kEnvApiMode = "WS_CUPTI_API_MODE";      // select | filter
inline constexpr const char* kEnvPrefault = "WS_CUPTI_PREFAULT";     // activity buffers touched ahead (4)
inline constexpr const char* kEnvKindsOff = "WS_CUPTI_KINDS_OFF";    // sync,overhead,memcpy,memset,driver,subscriber
inline constexpr const char* kEnvFlushMs = "WS_CUPTI_FLUSH_MS";      // periodic flush (500 ms; 0 = at exit only)
inline constexpr const char* kEnvKernels = "WS_CUPTI_KERNELS";       // init | late (at the first context)
// --gpu-metrics (PM sampling period in ns) and --nvtx-timing (range names, '\n'-separated);
// their records and pure helpers are in raw/pmsampling.h and raw/nvtxtiming.h.
inline constexpr const char* kEnvGpuMetrics = "WS_GPU_METRICS_PERIOD_NS";
inline constexpr const char* kEnvNvtxTiming = "WS_NVTX_TIMING";

struct FileHeader {
    char magic[8];
    uint32_t version;
    uint32_t headerSize; // sizeof(FileHeader) of the writer
    int64_t pid;
    int64_t parentPid;
    int64_t anchorRealtimeNs; // CLOCK_REALTIME and CLOCK_MONOTONIC read back to back
    int64_t anchorMonotonicNs;
};

enum class RecordType : uint16_t {
    String = 1,       // StringDef + text: defines a per-file string id
    Process = 2,      // ProcessRecord
    Environment = 3,  // EnvironmentRecord
    Device = 4,       // DeviceRecord
    DeviceClocks = 5, // DeviceClocksRecord (NVML, filled in later by the writer thread)
    Kernel = 6,
    Memcpy = 7,
    Memset = 8,
    Api = 9,
    Sync = 10,
    Overhead = 11,
    NvtxEvent = 12,  // NvtxEventRecord + message text
    NvtxDomain = 13, // NvtxDomainRecord + domain name
    NvtxCategory = 14,
    ThreadName = 15,
    Dropped = 16,
    Message = 17,     // MessageRecord + text: warnings and errors of the injection library
    End = 18,         // written last by a clean exit; absent when the process died
    ThreadMap = 19,   // ThreadMapRecord: CUPTI's thread id -> OS thread id
    ClockDomain = 20, // ClockDomainRecord: which clock the CUPTI timestamps use
    StreamMap = 21,   // StreamMapRecord: CUPTI's stream id -> the id the program sees (cuStreamGetId)
    // 40..: --gpu-metrics and --nvtx-timing (structs in raw/pmsampling.h, raw/nvtxtiming.h)
    PmMetric = 40,   // PmMetricRecord + metric name: one PM sampling metric of a device
    PmSample = 41,   // PmSampleRecord + one double per metric: one PM sampling interval
    NvtxTiming = 42, // NvtxTimingRecord: GPU-stream time of one instance of a timed NVTX range
    PmGap = 43,      // PmGapRecord: a stretch of time without PM samples, and why
    // 60: event records, stream waits and event synchronisations (struct in raw/streamevent.h)
    StreamEvent = 60,
};

struct FrameHeader {
    uint32_t size; // payload bytes after this header
    uint16_t type; // RecordType
    uint16_t reserved;
};

// Refuse absurd sizes so that a corrupted length cannot make the reader allocate gigabytes.
inline constexpr uint32_t kMaxFramePayload = 16u << 20;

struct StringDef {
    uint32_t id; // > 0; 0 always means the empty string
    uint32_t reserved;
};

struct ProcessRecord {
    int64_t pid;
    int64_t parentPid;
    uint32_t commandLine; // string ids
    uint32_t executable;
};

struct EnvironmentRecord {
    uint32_t key; // string ids
    uint32_t value;
};

struct DeviceRecord {
    uint32_t id;
    uint32_t name; // string ids
    uint32_t uuid;
    int32_t ccMajor;
    int32_t ccMinor;
    int32_t smCount;
    int32_t clockKhz;    // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (maximum boost)
    int32_t memClockKhz; // peak memory clock
    int32_t memBusWidthBits;
    int32_t l2Bytes;
    int64_t globalMemBytes;
    int32_t regsPerSm;
    int32_t regsPerBlock;
    int32_t smemPerSm;
    int32_t smemPerBlock;
    int32_t smemPerBlockOptin;
    int32_t smemReservedPerBlock;
    int32_t maxThreadsPerSm;
    int32_t maxBlocksPerSm;
    int32_t maxThreadsPerBlock;
    int32_t warpSize;
};

struct DeviceClocksRecord {
    uint32_t id;
    int32_t smClockKhz; // current
    int32_t smClockMaxKhz;
    int32_t memClockKhz; // current
};

struct KernelRecord {
    int64_t start;
    int64_t end;
    int64_t queued;
    int64_t submitted;
    uint64_t graphNodeId;
    uint32_t deviceId;
    uint32_t contextId;
    uint32_t streamId;
    uint32_t correlationId;
    uint32_t name; // string id (mangled as CUPTI reports it)
    uint32_t graphId;
    int32_t grid[3];
    int32_t block[3];
    int32_t cluster[3];
    int32_t registersPerThread;
    int32_t staticSmem;
    int32_t dynamicSmem;
    int32_t localMemPerThread;
    int32_t reserved;
};

struct MemcpyRecord {
    int64_t start;
    int64_t end;
    int64_t bytes;
    uint32_t deviceId;
    uint32_t contextId;
    uint32_t streamId;
    uint32_t correlationId;
    uint32_t graphId;
    uint8_t copyKind; // CUpti_ActivityMemcpyKind (same numbering as ws::CopyKind)
    uint8_t srcKind;
    uint8_t dstKind;
    uint8_t reserved;
};

struct MemsetRecord {
    int64_t start;
    int64_t end;
    int64_t bytes;
    uint32_t deviceId;
    uint32_t contextId;
    uint32_t streamId;
    uint32_t correlationId;
    uint32_t graphId;
    uint32_t value;
};

enum class ApiDomain : uint8_t { Runtime = 0, Driver = 1 };

struct ApiRecord {
    int64_t start;
    int64_t end;
    int64_t tid;
    uint32_t correlationId;
    uint32_t cbid;
    uint32_t name; // string id
    int32_t returnValue;
    uint8_t domain; // ApiDomain
    uint8_t reserved[7];
};

struct SyncRecord {
    int64_t start;
    int64_t end;
    uint32_t correlationId;
    uint32_t contextId;
    uint32_t streamId;
    uint32_t eventId;
    uint32_t type; // CUpti_ActivitySynchronizationType (same numbering as ws::SyncKind)
    uint32_t reserved;
};

struct OverheadRecord {
    int64_t start;
    int64_t end;
    int64_t tid;   // 0 when CUPTI did not attribute it to a thread
    uint32_t kind; // string id
    uint32_t reserved;
};

enum class NvtxKind : uint8_t { Push = 0, Pop = 1, Start = 2, End = 3, Mark = 4 };

// One NVTX call. Push/Start/Mark carry the message as trailing bytes (UTF-8).
struct NvtxEventRecord {
    int64_t ts;
    int64_t tid;
    uint64_t domain;  // handle as seen in the process, 0 = default domain
    uint64_t rangeId; // Start/End: the nvtxRangeId_t
    uint32_t category;
    uint32_t color; // ARGB
    uint8_t kind;   // NvtxKind
    uint8_t hasColor;
    uint8_t reserved[6];
};

struct NvtxDomainRecord {
    uint64_t domain; // handle; trailing bytes: the domain's name
};

struct NvtxCategoryRecord {
    uint64_t domain;
    uint32_t category; // trailing bytes: the category's name
    uint32_t reserved;
};

enum class ThreadNameSource : uint32_t { Os = 0, Nvtx = 1 };

struct ThreadNameRecord {
    int64_t tid;
    uint32_t name;   // string id
    uint32_t source; // ThreadNameSource: a name the program gave through NVTX beats the OS one
};

// With CUPTI's default thread ids (pthread_self truncated to 32 bits) API records carry ids
// that are not OS thread ids; threads that the recorder sees (the one that initialises CUDA,
// every thread that calls NVTX) report both, and ingest maps API records through it.
struct ThreadMapRecord {
    uint64_t cuptiThreadId;
    int64_t tid;
};

// CUPTI timestamps in CLOCK_REALTIME (no timestamp callback): ingest subtracts
// realtimeMinusMonotonicNs from every CUPTI time to bring it into CLOCK_MONOTONIC.
struct ClockDomainRecord {
    uint32_t realtime; // 1 = CUPTI times are CLOCK_REALTIME
    uint32_t reserved;
    int64_t realtimeMinusMonotonicNs;
};

// CUPTI numbers streams itself; the program sees the driver's cuStreamGetId. The two differ
// once anything else in the context owns a stream, so the recorder writes the pair for every
// stream it sees created (and the legacy default stream at context creation) and ingest stores
// the program's id.
struct StreamMapRecord {
    uint32_t contextId; // CUPTI's context id, as in the activity records
    uint32_t cuptiStreamId;
    uint64_t programStreamId; // cuStreamGetId
};

struct DroppedRecord {
    uint64_t count;
    uint32_t contextId;
    uint32_t streamId;
};

enum class MessageLevel : uint32_t { Info = 0, Warning = 1, Error = 2 };

struct MessageRecord {
    uint32_t level; // MessageLevel; trailing bytes: the text
    uint32_t reserved;
};

struct EndRecord {
    int64_t ts;
    uint64_t droppedRecords; // reported by CUPTI over the whole run
    uint64_t frames;         // frames written before this one
};

// Appends one frame to `out` (a std::string or std::vector<char>).
template <typename Buffer, typename Payload>
void appendFrame(Buffer& out, RecordType type, const Payload& payload, std::string_view trailing = {})
{
    static_assert(std::is_trivially_copyable_v<Payload>);
    FrameHeader h {};
    h.size = static_cast<uint32_t>(sizeof(Payload) + trailing.size());
    h.type = static_cast<uint16_t>(type);
    // One resize and three copies: the recorder's writer thread appends two frames per launch.
    const size_t at = out.size();
    out.resize(at + sizeof(h) + sizeof(Payload) + trailing.size());
    auto* dst = reinterpret_cast<char*>(&out[at]);
    std::memcpy(dst, &h, sizeof(h));
    std::memcpy(dst + sizeof(h), &payload, sizeof(Payload));
    if (!trailing.empty())
        std::memcpy(dst + sizeof(h) + sizeof(Payload), trailing.data(), trailing.size());
}

// Copies a payload into a struct, zero-filling what an older writer did not write.
template <typename Payload> Payload readPayload(std::string_view payload)
{
    Payload p {};
    std::memcpy(&p, payload.data(), payload.size() < sizeof(Payload) ? payload.size() : sizeof(Payload));
    return p;
}

// The bytes after the fixed struct (strings).
template <typename Payload> std::string_view trailingBytes(std::string_view payload)
{
    return payload.size() > sizeof(Payload) ? payload.substr(sizeof(Payload)) : std::string_view {};
}

} // namespace ws::raw
