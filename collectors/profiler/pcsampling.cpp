// SPDX-License-Identifier: MIT
#include "pcsampling.h"

#include "cuptistatus.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ws::profiler {

namespace {

// PCs per GetData call and in CUPTI's own overflow buffer: the stall kernels have tens of
// sampled PCs, large kernels a few thousand; more are fetched in further GetData calls.
constexpr size_t kPcsPerBuffer = 8192;
// Line-table walk at exit: instructions are 16 bytes on every architecture PC sampling supports
// (sm_70+); stop a function's walk after this many PCs without an answer past its last sample.
constexpr uint64_t kInstructionBytes = 16;
constexpr int kMissesAfterLastSample = 64;
constexpr size_t kMaxCorrelationCalls = 200000;
// The walk runs in the exit handler: bound it so a huge module cannot hold the program's exit.
constexpr double kMaxCorrelationMs = 8000;

std::string cuptiCall(const char* what, CUptiResult st)
{
    std::string s = std::string(what) + ": " + cuptiStatus(st);
    const std::string remedy = cuptiRemedy(st);
    if (!remedy.empty())
        s += ": " + remedy;
    return s;
}

} // namespace

void PcSampler::Buffer::allocate(size_t pcCount, size_t reasonCount)
{
    pcs.assign(pcCount, CUpti_PCSamplingPCData {});
    reasons.assign(pcCount * std::max<size_t>(reasonCount, 1), CUpti_PCSamplingStallReason {});
    for (size_t i = 0; i < pcCount; ++i) {
        pcs[i].size = sizeof(CUpti_PCSamplingPCData);
        pcs[i].stallReason = reasons.data() + i * std::max<size_t>(reasonCount, 1);
    }
    data = {};
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = pcCount;
    data.pPcData = pcs.data();
}

PcSampler::~PcSampler() = default;

bool PcSampler::open(const ProfileConfig& config, int64_t pid, std::string& error)
{
    m_config = config;
    if (config.pcSamplingPeriod > 0)
        m_period = static_cast<uint32_t>(config.pcSamplingPeriod);
    const std::string path = config.outputDir + "/pcsamp-" + std::to_string(pid) + ".txt";
    if (!m_writer.open(path, pid)) {
        error = "cannot create " + path;
        return false;
    }
    m_cubins.setDirectory(config.outputDir, pid);
    m_writer.info("period", std::to_string(m_period));
    m_writer.info("start_stop", config.pcSamplingStartStop ? "1" : "0");
    m_writer.flush();
    return true;
}

void PcSampler::error(const std::string& text)
{
    std::fprintf(stderr, "warpscope-profile: PC sampling: %s\n", text.c_str());
    if (m_errorsSeen.insert(text).second) {
        m_writer.error(text);
        m_writer.flush();
    }
}

void PcSampler::onModuleLoaded(const CUpti_ModuleResourceData& module)
{
    std::string err;
    const CapturedCubin c = m_cubins.onModuleLoaded(module, err);
    if (!err.empty())
        error(err);
    if (c.crc != 0) {
        m_writer.cubin(c);
        m_writer.flush();
    }
}

PcSampler::Context& PcSampler::context(CUcontext ctx)
{
    auto& slot = m_contexts[ctx];
    if (!slot)
        slot = std::make_unique<Context>();
    return *slot;
}

bool PcSampler::prepare(CUcontext ctx, std::string& err)
{
    Context& c = context(ctx);
    if (c.failed) {
        err = c.error;
        return false;
    }
    if (c.readBuffer.data.size != 0)
        return true;
    if (!configure(ctx, c, err)) {
        c.failed = true;
        c.error = err;
        error(err);
        return false;
    }
    return true;
}

bool PcSampler::configure(CUcontext ctx, Context& c, std::string& err)
{
    CUpti_PCSamplingEnableParams en {};
    en.size = CUpti_PCSamplingEnableParamsSize;
    en.ctx = ctx;
    CUptiResult st = cuptiPCSamplingEnable(&en);
    if (st != CUPTI_SUCCESS) {
        err = cuptiCall("cuptiPCSamplingEnable", st);
        return false;
    }

    size_t numReasons = 0;
    CUpti_PCSamplingGetNumStallReasonsParams np {};
    np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
    np.ctx = ctx;
    np.numStallReasons = &numReasons;
    if ((st = cuptiPCSamplingGetNumStallReasons(&np)) != CUPTI_SUCCESS) {
        err = cuptiCall("cuptiPCSamplingGetNumStallReasons", st);
        return false;
    }
    std::vector<uint32_t> indices(numReasons);
    std::vector<std::vector<char>> storage(numReasons, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
    std::vector<char*> names(numReasons);
    for (size_t i = 0; i < numReasons; ++i)
        names[i] = storage[i].data();
    CUpti_PCSamplingGetStallReasonsParams rp {};
    rp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
    rp.ctx = ctx;
    rp.numStallReasons = numReasons;
    rp.stallReasonIndex = indices.data();
    rp.stallReasons = names.data();
    if ((st = cuptiPCSamplingGetStallReasons(&rp)) != CUPTI_SUCCESS) {
        err = cuptiCall("cuptiPCSamplingGetStallReasons", st);
        return false;
    }
    if (m_reasonNames.empty()) {
        for (size_t i = 0; i < numReasons; ++i) {
            storage[i].back() = 0;
            m_reasonNames[indices[i]] = names[i];
            m_writer.stallReason(indices[i], names[i]);
        }
        m_reasonIndices = indices;
        m_writer.info("stall_reasons", std::to_string(numReasons));
    }

    c.configBuffer.allocate(kPcsPerBuffer, numReasons);
    c.readBuffer.allocate(kPcsPerBuffer, numReasons);

    std::vector<CUpti_PCSamplingConfigurationInfo> attrs;
    auto add = [&](CUpti_PCSamplingConfigurationAttributeType type) -> CUpti_PCSamplingConfigurationInfo& {
        CUpti_PCSamplingConfigurationInfo info {};
        info.attributeType = type;
        attrs.push_back(info);
        return attrs.back();
    };
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL)
        .attributeData.enableStartStopControlData.enableStartStopControl
        = m_config.pcSamplingStartStop ? 1u : 0u;
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER)
        .attributeData.samplingDataBufferData.samplingDataBuffer
        = &c.configBuffer.data;
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD).attributeData.samplingPeriodData.samplingPeriod
        = m_period;
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE).attributeData.collectionModeData.collectionMode
        = CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT)
        .attributeData.outputDataFormatData.outputDataFormat
        = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
    CUpti_PCSamplingConfigurationInfoParams cp {};
    cp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
    cp.ctx = ctx;
    cp.numAttributes = attrs.size();
    cp.pPCSamplingConfigurationInfo = attrs.data();
    if ((st = cuptiPCSamplingSetConfigurationAttribute(&cp)) != CUPTI_SUCCESS) {
        err = cuptiCall("cuptiPCSamplingSetConfigurationAttribute", st);
        for (const auto& a : attrs) {
            if (a.attributeStatus != CUPTI_SUCCESS)
                err += "; attribute " + std::to_string(static_cast<int>(a.attributeType)) + ": "
                    + cuptiStatus(a.attributeStatus);
        }
        return false;
    }
    m_writer.flush();
    return true;
}

bool PcSampler::start(CUcontext ctx, std::string& err)
{
    Context& c = context(ctx);
    if (c.failed) {
        err = c.error;
        return false;
    }
    if (!m_config.pcSamplingStartStop || c.started)
        return true;
    CUpti_PCSamplingStartParams sp {};
    sp.size = CUpti_PCSamplingStartParamsSize;
    sp.ctx = ctx;
    const CUptiResult st = cuptiPCSamplingStart(&sp);
    if (st != CUPTI_SUCCESS) {
        err = cuptiCall("cuptiPCSamplingStart", st);
        error(err);
        return false;
    }
    c.started = true;
    return true;
}

void PcSampler::drain(CUcontext ctx, Context& c, int64_t launchIndex, uint32_t correlationId, PcSamplingRange& range,
    std::map<std::string, uint64_t>& reasonTotals)
{
    Buffer& b = c.readBuffer;
    // Each call hands over at most collectNumPcs PCs; remainingNumPcs says whether more wait.
    for (int round = 0; round < 1024; ++round) {
        b.data.totalNumPcs = 0;
        b.data.remainingNumPcs = 0;
        CUpti_PCSamplingGetDataParams gp {};
        gp.size = CUpti_PCSamplingGetDataParamsSize;
        gp.ctx = ctx;
        gp.pcSamplingData = &b.data;
        const CUptiResult st = cuptiPCSamplingGetData(&gp);
        if (st != CUPTI_SUCCESS) {
            range.error = cuptiCall("cuptiPCSamplingGetData", st);
            if (b.data.hardwareBufferFull)
                range.hardwareBufferFull = true;
            return;
        }
        range.totalSamples = std::max<uint64_t>(range.totalSamples, b.data.totalSamples);
        range.droppedSamples = std::max<uint64_t>(range.droppedSamples, b.data.droppedSamples);
        range.nonUserSamples = std::max<uint64_t>(range.nonUserSamples, b.data.nonUsrKernelsTotalSamples);
        range.hardwareBufferFull = range.hardwareBufferFull || b.data.hardwareBufferFull;
        const size_t n = std::min(b.data.totalNumPcs, b.pcs.size());
        for (size_t i = 0; i < n; ++i) {
            const CUpti_PCSamplingPCData& pc = b.pcs[i];
            // Without start/stop control every kernel is sampled: keep this launch's PCs only.
            if (!m_config.pcSamplingStartStop && pc.correlationId != 0 && pc.correlationId != correlationId)
                continue;
            PcSampleRecord rec;
            rec.launchIndex = launchIndex;
            rec.cubinCrc = pc.cubinCrc;
            rec.pcOffset = pc.pcOffset;
            rec.functionIndex = pc.functionIndex;
            rec.correlationId = pc.correlationId ? pc.correlationId : correlationId;
            // The name may be shared with other records and CUPTI leaves freeing it to the
            // tool after all processing; the few bytes per function are left alone.
            rec.functionName = pc.functionName ? pc.functionName : "";
            for (size_t r = 0; r < pc.stallReasonCount && pc.stallReason; ++r) {
                const auto& sr = pc.stallReason[r];
                if (sr.samples == 0)
                    continue;
                rec.reasons.emplace_back(sr.pcSamplingStallReasonIndex, sr.samples);
                auto name = m_reasonNames.find(sr.pcSamplingStallReasonIndex);
                reasonTotals[name != m_reasonNames.end() ? name->second : std::to_string(sr.pcSamplingStallReasonIndex)]
                    += sr.samples;
            }
            m_sampledPcs[{rec.cubinCrc, rec.functionName}].insert(rec.pcOffset);
            m_writer.sample(rec);
            ++range.pcs;
        }
        if (b.data.remainingNumPcs == 0)
            break;
    }
}

PcSamplingRange PcSampler::collect(
    CUcontext ctx, int64_t launchIndex, uint32_t correlationId, std::map<std::string, uint64_t>& reasonTotals)
{
    PcSamplingRange range;
    range.launchIndex = launchIndex;
    range.correlationId = correlationId;
    range.period = m_period;
    Context& c = context(ctx);
    if (c.failed) {
        range.error = c.error;
        m_writer.range(range);
        return range;
    }
    // Kernel-serialized collection ends with the kernel; wait for it before Stop.
    const CUresult sync = cuCtxSynchronize();
    if (sync != CUDA_SUCCESS) {
        const char* s = nullptr;
        cuGetErrorString(sync, &s);
        range.error = std::string("cuCtxSynchronize after the launch: ") + (s ? s : "unknown error");
    }
    if (m_config.pcSamplingStartStop && c.started) {
        CUpti_PCSamplingStopParams sp {};
        sp.size = CUpti_PCSamplingStopParamsSize;
        sp.ctx = ctx;
        const CUptiResult st = cuptiPCSamplingStop(&sp);
        c.started = false;
        if (st != CUPTI_SUCCESS) {
            range.error = cuptiCall("cuptiPCSamplingStop", st);
            error(range.error);
        }
    }
    if (range.error.empty())
        drain(ctx, c, launchIndex, correlationId, range, reasonTotals);
    if (!range.error.empty())
        error(range.error);
    m_writer.range(range);
    m_writer.flush();
    return range;
}

void PcSampler::correlate()
{
    const auto t0 = std::chrono::steady_clock::now();
    size_t calls = 0, answered = 0;
    std::string firstError;
    auto lineOf = [&](const std::vector<uint8_t>& image, const std::string& fn, uint64_t pc, CorrelatedLine& out) {
        ++calls;
        CUpti_GetSassToSourceCorrelationParams p {};
        p.size = CUpti_GetSassToSourceCorrelationParamsSize;
        p.cubin = image.data();
        p.cubinSize = image.size();
        p.functionName = fn.c_str();
        p.pcOffset = pc;
        const CUptiResult st = cuptiGetSassToSourceCorrelation(&p);
        const bool ok = st == CUPTI_SUCCESS && p.lineNumber != 0;
        if (ok) {
            out.line = p.lineNumber;
            const std::string dir = p.dirName ? p.dirName : "";
            const std::string file = p.fileName ? p.fileName : "";
            out.path = file.empty() || file.front() == '/' || dir.empty() ? file : dir + "/" + file;
        } else if (st != CUPTI_SUCCESS && firstError.empty()) {
            firstError = cuptiCall("cuptiGetSassToSourceCorrelation", st);
        }
        std::free(p.fileName);
        std::free(p.dirName);
        return ok;
    };
    for (const auto& [key, pcs] : m_sampledPcs) {
        const auto& [crc, fn] = key;
        const std::vector<uint8_t>* image = m_cubins.image(crc);
        if (!image && !fn.empty()) {
            image = m_cubins.imageWithFunction(fn);
            if (image)
                m_writer.info("crc_mismatch", "PC records of " + fn + " name a cubin CRC no captured module has");
        }
        if (!image || fn.empty() || pcs.empty())
            continue;
        // Every instruction up to past the last sampled one, so the source view has the whole
        // line table even where nvdisasm is not installed.
        const uint64_t last = *pcs.rbegin();
        int misses = 0;
        for (uint64_t pc = 0; calls < kMaxCorrelationCalls; pc += kInstructionBytes) {
            if ((calls & 63) == 0
                && std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()
                    > kMaxCorrelationMs) {
                m_writer.info("correlation_truncated", "time budget reached");
                break;
            }
            CorrelatedLine l;
            l.cubinCrc = crc;
            l.functionName = fn;
            l.pcOffset = pc;
            if (lineOf(*image, fn, pc, l)) {
                ++answered;
                m_writer.line(l);
                misses = 0;
            } else if (pc > last && ++misses >= kMissesAfterLastSample) {
                break;
            }
        }
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    m_writer.info("correlation_calls", std::to_string(calls));
    m_writer.info("correlated_pcs", std::to_string(answered));
    m_writer.info("correlation_ms", std::to_string(ms));
    if (!firstError.empty())
        m_writer.info("correlation_error", firstError);
}

void PcSampler::finish()
{
    if (m_finished)
        return;
    m_finished = true;
    correlate();
    for (auto& [ctx, c] : m_contexts) {
        if (!c || c->failed || c->readBuffer.data.size == 0)
            continue;
        CUpti_PCSamplingDisableParams dp {};
        dp.size = CUpti_PCSamplingDisableParamsSize;
        dp.ctx = ctx;
        const CUptiResult st = cuptiPCSamplingDisable(&dp);
        if (st != CUPTI_SUCCESS)
            m_writer.info("disable_error", cuptiStatus(st));
    }
    m_writer.info("cubins", std::to_string(m_cubins.count()));
    m_writer.end();
}

} // namespace ws::profiler
