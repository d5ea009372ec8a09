// SPDX-License-Identifier: MIT
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ws::inject {

class RawWriter;

namespace cupti {

// Per-writer-thread caches so converting a buffer takes no lock per record.
struct ConverterCache {
    std::unordered_map<std::string, uint32_t> names;
    std::unordered_map<uint64_t, uint32_t> apiNames; // (domain << 32 | cbid) -> string id
    std::unordered_map<int64_t, bool> threadsNamed;
};

// What activity records name by reference rather than carry: kernel names are pointers into
// CUPTI's memory, API calls are callback ids, threads are ids. Inside the traced process these
// are answered by CUPTI and /proc (LiveActivityNames, activitycapture.h); a replay of captured
// buffers answers them from the capture's tables (CapturedActivity, activityreplay.h).
class ActivityNames {
public:
    virtual ~ActivityNames() = default;
    // The text of a string CUPTI put in a record ("" for null).
    virtual std::string text(const char* cuptiString) = 0;
    // The callback name of a runtime (driver = false) or driver API; "" when unknown.
    virtual std::string apiName(bool driver, uint32_t cbid) = 0;
    // The name of an OS thread of the traced process; "" when unknown.
    virtual std::string threadName(int64_t tid) = 0;
};

// Activity records -> raw frames (core/raw/rawformat.h). Only CUPTI's headers: it calls nothing
// in libcupti, so tests replay captured buffers through it without a GPU or a CUPTI library.
// The record versions it reads are the ones this toolkit's CUPTI writes (see kRecordVersions).
class ActivityConverter {
public:
    ActivityConverter(RawWriter& writer, ConverterCache& cache, ActivityNames& names);

    // Converts one record (kinds the recorder does not enable are skipped).
    void add(const CUpti_Activity* record);
    // Room for the frames of a buffer of `bytes` valid bytes (frames are smaller than records).
    void reserve(size_t bytes) { m_out.reserve(bytes); }
    // Hands the frames converted so far to the writer, in one piece.
    void finish();
    uint64_t frames() const { return m_count; }

private:
    uint32_t cachedName(const std::string& name);
    void nameThread(int64_t tid);

    RawWriter& m_writer;
    ConverterCache& m_cache;
    ActivityNames& m_names;
    std::string m_out;
    uint64_t m_count = 0;
};

// The activity kinds the converter reads and the struct version it reads each as: a capture
// records these (with their sizes), so a replay can tell when a toolkit changed the layout.
struct RecordVersion {
    CUpti_ActivityKind kind;
    const char* kindName;
    const char* structName;
    size_t structSize;
};
extern const RecordVersion kRecordVersions[8];

} // namespace cupti
} // namespace ws::inject
