// SPDX-License-Identifier: MIT
// NVTX injection: libwarpscope-inject.so is also the NVTX tool library (NVTX_INJECTION64_PATH
// points at it), the way Nsight Systems receives NVTX, instead of handing NVTX to libcupti.
//
// Why not CUPTI's NVTX support: CUPTI only records NVTX that reaches *the same* libcupti
// instance that has activity enabled. In a PyTorch process two CUPTI copies are mapped: the
// program's own (torch's wheel, loaded by soname when torch is imported, and which our
// injection library then binds to) and the toolkit file NVTX_INJECTION64_PATH named, which
// dlopen() loads a second time because the path differs. torch.cuda.nvtx calls went to the
// second copy, which had no activity enabled, so they vanished. Receiving NVTX here works the
// same whichever CUPTI the process uses, for nvtx3 header-only users and libnvToolsExt alike.
#include "nvtxtiming.h"
#include "recorder.h"

#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

namespace ws::inject {

namespace {

struct Domain {
    uint64_t id;
};
struct RegisteredString {
    std::string text;
};

std::atomic<uint64_t> g_nextDomain {1};
std::atomic<uint64_t> g_nextRangeId {1};
// The range that opened an nvtx:NAME capture range, so its end can close it.
std::atomic<int64_t> g_triggerTid {0};
std::atomic<int> g_triggerDepth {-1};
std::atomic<uint64_t> g_triggerRangeId {0};

thread_local int64_t t_tid = 0;
thread_local int t_depth = 0; // push/pop nesting on this thread, all domains

std::string toUtf8(const wchar_t* w)
{
    std::string out;
    if (!w)
        return out;
    for (; *w; ++w) {
        const auto c = static_cast<uint32_t>(*w);
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if (c < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (c >> 6)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else if (c < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (c >> 12)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (c >> 18)));
            out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        }
    }
    return out;
}

Recorder* live()
{
    Recorder* r = Recorder::instance();
    return r && !r->closed() ? r : nullptr;
}

int64_t currentTid(Recorder* r)
{
    if (t_tid == 0) {
        t_tid = static_cast<int64_t>(syscall(SYS_gettid));
        r->mapCurrentThread();
        // First NVTX call on this thread: record its name once.
        char name[64] = {};
        if (FILE* f = std::fopen("/proc/thread-self/comm", "r")) {
            if (std::fgets(name, sizeof(name), f))
                name[std::strcspn(name, "\n")] = '\0';
            std::fclose(f);
        }
        if (name[0]) {
            raw::ThreadNameRecord t {};
            t.tid = t_tid;
            t.name = r->writer().intern(name);
            r->writer().add(raw::RecordType::ThreadName, t);
        }
    }
    return t_tid;
}

uint64_t domainId(nvtxDomainHandle_t d)
{
    return d ? reinterpret_cast<const Domain*>(d)->id : 0;
}

// The event's message, whatever form it came in.
std::string messageOf(const nvtxEventAttributes_t* a)
{
    if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof(a->message))
        return {};
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE:
        return toUtf8(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return a->message.registered ? reinterpret_cast<const RegisteredString*>(a->message.registered)->text : "";
    default:
        return {};
    }
}

void emit(Recorder* r, raw::NvtxKind kind, uint64_t domain, const nvtxEventAttributes_t* a, std::string_view message,
    uint64_t rangeId)
{
    raw::NvtxEventRecord e {};
    e.ts = monotonicNs();
    e.tid = currentTid(r);
    e.domain = domain;
    e.rangeId = rangeId;
    e.kind = static_cast<uint8_t>(kind);
    if (a && a->size >= offsetof(nvtxEventAttributes_t, color) + sizeof(a->color)) {
        e.category = a->category;
        if (a->colorType == NVTX_COLOR_ARGB) {
            e.color = a->color;
            e.hasColor = 1;
        }
    }
    r->writer().add(raw::RecordType::NvtxEvent, e, message);
}

bool recording(Recorder* r)
{
    return r->config().traceNvtx && r->capturing();
}

// A range begins: open the nvtx:NAME capture range if this is it, then record.
void rangeBegins(Recorder* r, raw::NvtxKind kind, uint64_t domain, const nvtxEventAttributes_t* a,
    std::string_view message, uint64_t rangeId)
{
    const auto& cfg = r->config();
    if (cfg.capture == CaptureMode::NvtxRange && !r->capturing() && message == cfg.captureNvtxName
        && g_triggerDepth.load() < 0 && g_triggerRangeId.load() == 0) {
        if (kind == raw::NvtxKind::Push) {
            // pushWith already counted this range: its level is one less.
            g_triggerTid.store(currentTid(r));
            g_triggerDepth.store(t_depth - 1);
        } else {
            g_triggerRangeId.store(rangeId);
        }
        r->startCapture();
    }
    if (recording(r))
        emit(r, kind, domain, a, message, rangeId);
}

void rangeEnds(Recorder* r, raw::NvtxKind kind, uint64_t domain, uint64_t rangeId)
{
    if (recording(r))
        emit(r, kind, domain, nullptr, {}, rangeId);
    if (r->config().capture != CaptureMode::NvtxRange || !r->capturing())
        return;
    const bool endsTrigger = kind == raw::NvtxKind::Pop
        ? (g_triggerDepth.load() == t_depth && g_triggerTid.load() == currentTid(r))
        : (rangeId != 0 && g_triggerRangeId.load() == rangeId);
    if (endsTrigger)
        r->stopCapture();
}

// ---- NVTX core module ----

void NVTX_API markEx(const nvtxEventAttributes_t* a)
{
    if (auto* r = live(); r && recording(r))
        emit(r, raw::NvtxKind::Mark, 0, a, messageOf(a), 0);
}
void NVTX_API markA(const char* m)
{
    if (auto* r = live(); r && recording(r))
        emit(r, raw::NvtxKind::Mark, 0, nullptr, m ? m : "", 0);
}
void NVTX_API markW(const wchar_t* m)
{
    if (auto* r = live(); r && recording(r))
        emit(r, raw::NvtxKind::Mark, 0, nullptr, toUtf8(m), 0);
}

nvtxRangeId_t startWith(uint64_t domain, const nvtxEventAttributes_t* a, std::string_view message)
{
    const uint64_t id = g_nextRangeId.fetch_add(1);
    if (auto* r = live()) {
        rangeBegins(r, raw::NvtxKind::Start, domain, a, message, id);
        nvtxtiming::started(*r, message, id);
    }
    return id;
}
nvtxRangeId_t NVTX_API rangeStartEx(const nvtxEventAttributes_t* a)
{
    return startWith(0, a, messageOf(a));
}
nvtxRangeId_t NVTX_API rangeStartA(const char* m)
{
    return startWith(0, nullptr, m ? m : "");
}
nvtxRangeId_t NVTX_API rangeStartW(const wchar_t* m)
{
    return startWith(0, nullptr, toUtf8(m));
}
void NVTX_API rangeEnd(nvtxRangeId_t id)
{
    if (auto* r = live()) {
        nvtxtiming::ended(*r, id);
        rangeEnds(r, raw::NvtxKind::End, 0, id);
    }
}

int pushWith(uint64_t domain, const nvtxEventAttributes_t* a, std::string_view message)
{
    const int level = t_depth++;
    if (auto* r = live()) {
        rangeBegins(r, raw::NvtxKind::Push, domain, a, message, 0);
        nvtxtiming::pushed(*r, message, level);
    }
    return level;
}
int NVTX_API rangePushEx(const nvtxEventAttributes_t* a)
{
    return pushWith(0, a, messageOf(a));
}
int NVTX_API rangePushA(const char* m)
{
    return pushWith(0, nullptr, m ? m : "");
}
int NVTX_API rangePushW(const wchar_t* m)
{
    return pushWith(0, nullptr, toUtf8(m));
}
int popWith(uint64_t domain)
{
    if (t_depth == 0)
        return -1; // NVTX's contract: negative when there is nothing to pop
    const int level = --t_depth;
    if (auto* r = live()) {
        // The end event first, so the recorder's own work at pop stays outside the interval.
        nvtxtiming::popped(*r, level);
        rangeEnds(r, raw::NvtxKind::Pop, domain, 0);
    }
    return level;
}
int NVTX_API rangePop()
{
    return popWith(0);
}

void nameCategory(uint64_t domain, uint32_t category, const std::string& name)
{
    if (auto* r = live()) {
        raw::NvtxCategoryRecord c {};
        c.domain = domain;
        c.category = category;
        r->writer().add(raw::RecordType::NvtxCategory, c, name);
    }
}
void NVTX_API nameCategoryA(uint32_t category, const char* name)
{
    nameCategory(0, category, name ? name : "");
}
void NVTX_API nameCategoryW(uint32_t category, const wchar_t* name)
{
    nameCategory(0, category, toUtf8(name));
}
void nameOsThread(uint32_t tid, const std::string& name)
{
    if (auto* r = live()) {
        raw::ThreadNameRecord t {};
        t.tid = tid;
        t.name = r->writer().intern(name);
        t.source = static_cast<uint32_t>(raw::ThreadNameSource::Nvtx);
        r->writer().add(raw::RecordType::ThreadName, t);
    }
}
void NVTX_API nameOsThreadA(uint32_t tid, const char* name)
{
    nameOsThread(tid, name ? name : "");
}
void NVTX_API nameOsThreadW(uint32_t tid, const wchar_t* name)
{
    nameOsThread(tid, toUtf8(name));
}

// ---- NVTX core2 module (domains) ----

void NVTX_API domainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a)
{
    if (auto* r = live(); r && recording(r))
        emit(r, raw::NvtxKind::Mark, domainId(d), a, messageOf(a), 0);
}
nvtxRangeId_t NVTX_API domainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a)
{
    return startWith(domainId(d), a, messageOf(a));
}
void NVTX_API domainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    if (auto* r = live()) {
        nvtxtiming::ended(*r, id);
        rangeEnds(r, raw::NvtxKind::End, domainId(d), id);
    }
}
int NVTX_API domainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a)
{
    return pushWith(domainId(d), a, messageOf(a));
}
int NVTX_API domainRangePop(nvtxDomainHandle_t d)
{
    return popWith(domainId(d));
}
nvtxResourceHandle_t NVTX_API domainResourceCreate(nvtxDomainHandle_t, nvtxResourceAttributes_t*)
{
    // Resource naming is not recorded; hand out a distinct, never-dereferenced handle.
    static std::atomic<uintptr_t> next {1};
    return reinterpret_cast<nvtxResourceHandle_t>(next.fetch_add(1));
}
void NVTX_API domainResourceDestroy(nvtxResourceHandle_t) { }
void NVTX_API domainNameCategoryA(nvtxDomainHandle_t d, uint32_t category, const char* name)
{
    nameCategory(domainId(d), category, name ? name : "");
}
void NVTX_API domainNameCategoryW(nvtxDomainHandle_t d, uint32_t category, const wchar_t* name)
{
    nameCategory(domainId(d), category, toUtf8(name));
}
nvtxStringHandle_t NVTX_API domainRegisterStringA(nvtxDomainHandle_t, const char* s)
{
    // Leaked on purpose: handles stay valid for the life of the process, as NVTX promises.
    return reinterpret_cast<nvtxStringHandle_t>(new RegisteredString {s ? s : ""});
}
nvtxStringHandle_t NVTX_API domainRegisterStringW(nvtxDomainHandle_t, const wchar_t* s)
{
    return reinterpret_cast<nvtxStringHandle_t>(new RegisteredString {toUtf8(s)});
}
nvtxDomainHandle_t createDomain(const std::string& name)
{
    auto* d = new Domain {g_nextDomain.fetch_add(1)}; // leaked on purpose, like registered strings
    if (auto* r = live()) {
        raw::NvtxDomainRecord rec {d->id};
        r->writer().add(raw::RecordType::NvtxDomain, rec, name);
    }
    return reinterpret_cast<nvtxDomainHandle_t>(d);
}
nvtxDomainHandle_t NVTX_API domainCreateA(const char* name)
{
    return createDomain(name ? name : "");
}
nvtxDomainHandle_t NVTX_API domainCreateW(const wchar_t* name)
{
    return createDomain(toUtf8(name));
}
void NVTX_API domainDestroy(nvtxDomainHandle_t) { }
void NVTX_API initialize(const void*) { }

template <typename Fn> void install(NvtxFunctionTable table, unsigned size, unsigned id, Fn fn)
{
    // The table has `size` usable slots, 1-based; a null slot is a function this client's NVTX
    // version does not have.
    if (table && id >= 1 && id <= size && table[id])
        *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

} // namespace

} // namespace ws::inject

extern "C" __attribute__((visibility("default"))) int NVTX_API InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t getExportTable)
{
    using namespace ws::inject;
    // Create the recorder now: NVTX may come before CUDA (a range around initialisation).
    if (!Recorder::instance())
        return 0; // not under `warpscope-cli record`: NVTX stays a no-op
    const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
    if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) || !callbacks->GetModuleFunctionTable)
        return 0;

    NvtxFunctionTable t = nullptr;
    unsigned n = 0;
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n)) {
        install(t, n, NVTX_CBID_CORE_MarkEx, &markEx);
        install(t, n, NVTX_CBID_CORE_MarkA, &markA);
        install(t, n, NVTX_CBID_CORE_MarkW, &markW);
        install(t, n, NVTX_CBID_CORE_RangeStartEx, &rangeStartEx);
        install(t, n, NVTX_CBID_CORE_RangeStartA, &rangeStartA);
        install(t, n, NVTX_CBID_CORE_RangeStartW, &rangeStartW);
        install(t, n, NVTX_CBID_CORE_RangeEnd, &rangeEnd);
        install(t, n, NVTX_CBID_CORE_RangePushEx, &rangePushEx);
        install(t, n, NVTX_CBID_CORE_RangePushA, &rangePushA);
        install(t, n, NVTX_CBID_CORE_RangePushW, &rangePushW);
        install(t, n, NVTX_CBID_CORE_RangePop, &rangePop);
        install(t, n, NVTX_CBID_CORE_NameCategoryA, &nameCategoryA);
        install(t, n, NVTX_CBID_CORE_NameCategoryW, &nameCategoryW);
        install(t, n, NVTX_CBID_CORE_NameOsThreadA, &nameOsThreadA);
        install(t, n, NVTX_CBID_CORE_NameOsThreadW, &nameOsThreadW);
    }
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n)) {
        install(t, n, NVTX_CBID_CORE2_DomainMarkEx, &domainMarkEx);
        install(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, &domainRangeStartEx);
        install(t, n, NVTX_CBID_CORE2_DomainRangeEnd, &domainRangeEnd);
        install(t, n, NVTX_CBID_CORE2_DomainRangePushEx, &domainRangePushEx);
        install(t, n, NVTX_CBID_CORE2_DomainRangePop, &domainRangePop);
        install(t, n, NVTX_CBID_CORE2_DomainResourceCreate, &domainResourceCreate);
        install(t, n, NVTX_CBID_CORE2_DomainResourceDestroy, &domainResourceDestroy);
        install(t, n, NVTX_CBID_CORE2_DomainNameCategoryA, &domainNameCategoryA);
        install(t, n, NVTX_CBID_CORE2_DomainNameCategoryW, &domainNameCategoryW);
        install(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, &domainRegisterStringA);
        install(t, n, NVTX_CBID_CORE2_DomainRegisterStringW, &domainRegisterStringW);
        install(t, n, NVTX_CBID_CORE2_DomainCreateA, &domainCreateA);
        install(t, n, NVTX_CBID_CORE2_DomainCreateW, &domainCreateW);
        install(t, n, NVTX_CBID_CORE2_DomainDestroy, &domainDestroy);
        install(t, n, NVTX_CBID_CORE2_Initialize, &initialize);
    }
    if (const auto* version = static_cast<const NvtxExportTableVersionInfo*>(getExportTable(NVTX_ETID_VERSIONINFO));
        version && version->struct_size >= sizeof(NvtxExportTableVersionInfo) && version->SetInjectionNvtxVersion)
        version->SetInjectionNvtxVersion(NVTX_VERSION);
    return 1;
}
