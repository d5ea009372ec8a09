// SPDX-License-Identifier: MIT
#include "core/source/sourceingest.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace ws {

namespace {

// A line table names a file the way the compiler saw it; keep a bounded copy only.
constexpr size_t kMaxSourceBytes = size_t(4) << 20;

} // namespace

SourceIngest::Summary SourceIngest::add(SessionData& s, const std::vector<ProfileResult>& profiles,
    const std::vector<PcSamplingResult>& samples, const std::map<uint64_t, CubinDisassembly>& disassemblies,
    const SourceReader& readSource)
{
    Summary sum;

    // (pid, host launch time, name) -> kernel id, then (pid, launch index) -> kernel id.
    std::map<std::tuple<int64_t, TimeNs, std::string>, int64_t> byStart;
    for (const auto& k : s.kernels)
        byStart[{k.pid, k.start, s.str(k.mangledName)}] = k.id;
    std::map<std::pair<int64_t, int64_t>, int64_t> kernelOf;
    for (const auto& r : profiles) {
        for (const auto& l : r.launches) {
            auto it = byStart.find({r.pid, l.hostStartNs, l.mangledName});
            if (it != byStart.end())
                kernelOf[{r.pid, l.index}] = it->second;
        }
    }

    // Functions: one per (cubin, name) across processes.
    std::map<std::pair<uint64_t, std::string>, uint32_t> functionOf;
    auto functionId = [&](int64_t pid, uint64_t crc, const std::string& name) {
        auto [it, fresh] = functionOf.try_emplace({crc, name}, 0);
        if (fresh) {
            SassFunction f;
            f.id = static_cast<uint32_t>(s.sassFunctions.size() + 1);
            f.pid = pid;
            f.cubinCrc = crc;
            f.name = s.strings.intern(name);
            if (auto d = disassemblies.find(crc); d != disassemblies.end())
                f.disassembler = d->second.tool;
            s.sassFunctions.push_back(f);
            it->second = f.id;
        }
        return it->second;
    };

    // Counters, summed per key (a PC can come in two GetData rounds).
    std::map<std::tuple<int64_t, uint32_t, uint64_t, StringId>, int64_t> counters;
    std::map<uint32_t, std::set<uint64_t>> sampledPcs;
    for (const auto& r : samples) {
        for (const auto& g : r.ranges)
            sum.droppedSamples += g.droppedSamples;
        for (const auto& rec : r.samples) {
            auto k = kernelOf.find({r.pid, rec.launchIndex});
            if (k == kernelOf.end()) {
                ++sum.unmatchedSamples;
                continue;
            }
            const uint32_t fn = functionId(r.pid, rec.cubinCrc, rec.functionName);
            sampledPcs[fn].insert(rec.pcOffset);
            for (const auto& [reason, n] : rec.reasons) {
                auto name = r.stallReasons.find(reason);
                const StringId counter = s.strings.intern(
                    name != r.stallReasons.end() ? name->second : "stall_reason_" + std::to_string(reason));
                counters[{k->second, fn, rec.pcOffset, counter}] += n;
                // The not-issued reasons repeat a subset of the samples; count each sample once.
                if (name == r.stallReasons.end() || name->second.find("_not_issued") == std::string::npos)
                    sum.samples += n;
            }
        }
        for (const auto& [key, value] : r.info)
            s.environment["pcsampling." + std::to_string(r.pid) + "." + key] = value;
        for (size_t i = 0; i < r.errors.size(); ++i)
            s.environment["pcsampling." + std::to_string(r.pid) + ".error" + std::to_string(i)] = r.errors[i];
    }
    for (const auto& [key, value] : counters) {
        const auto& [kernel, fn, pc, counter] = key;
        s.sourceCounters.push_back({kernel, fn, pc, counter, value});
    }

    // CUPTI's line for each correlated PC, the fallback where no disassembly exists.
    std::map<std::pair<uint32_t, uint64_t>, std::pair<std::string, int32_t>> cuptiLines;
    for (const auto& r : samples) {
        for (const auto& l : r.lines) {
            auto f = functionOf.find({l.cubinCrc, l.functionName});
            if (f != functionOf.end() && l.line > 0)
                cuptiLines[{f->second, l.pcOffset}] = {l.path, static_cast<int32_t>(l.line)};
        }
    }

    std::set<StringId> files;
    for (auto& f : s.sassFunctions) {
        const std::string name = s.str(f.name);
        const SassFunctionListing* listing = nullptr;
        if (auto d = disassemblies.find(f.cubinCrc); d != disassemblies.end()) {
            for (const auto& fl : d->second.functions) {
                if (fl.name == name)
                    listing = &fl;
            }
        }
        // A record whose CRC names no captured cubin: any disassembly with the function.
        for (auto d = disassemblies.begin(); !listing && d != disassemblies.end(); ++d) {
            for (const auto& fl : d->second.functions) {
                if (fl.name == name) {
                    listing = &fl;
                    f.disassembler = d->second.tool;
                }
            }
        }
        std::set<uint64_t> done;
        auto emit = [&](uint64_t pc, const std::string& text, std::string file, int32_t line) {
            if (line <= 0) {
                if (auto c = cuptiLines.find({f.id, pc}); c != cuptiLines.end()) {
                    file = c->second.first;
                    line = c->second.second;
                }
            }
            SassInstruction in;
            in.functionId = f.id;
            in.pcOffset = pc;
            in.text = text;
            in.file = line > 0 ? s.strings.intern(file) : 0;
            in.line = line > 0 ? line : 0;
            if (in.file != 0)
                files.insert(in.file);
            s.sassInstructions.push_back(std::move(in));
            done.insert(pc);
        };
        if (listing) {
            for (const auto& li : listing->instructions) {
                if (!done.count(li.pcOffset))
                    emit(li.pcOffset, li.text, li.file, li.line);
            }
        }
        // PCs the listing lacks (no disassembler, or a stale one): what CUPTI knows of them.
        std::set<uint64_t> rest = sampledPcs[f.id];
        for (const auto& [key, line] : cuptiLines) {
            if (key.first == f.id)
                rest.insert(key.second);
        }
        for (uint64_t pc : rest) {
            if (!done.count(pc))
                emit(pc, std::string(), std::string(), 0);
        }
    }
    // Rows of one function in PC order (WITHOUT ROWID keeps them so in the file too).
    std::stable_sort(s.sassInstructions.begin(), s.sassInstructions.end(), [](const auto& a, const auto& b) {
        return std::tie(a.functionId, a.pcOffset) < std::tie(b.functionId, b.pcOffset);
    });

    for (StringId file : files) {
        std::optional<std::string> text = readSource ? readSource(s.str(file)) : std::nullopt;
        if (!text) {
            ++sum.missingSourceFiles;
            continue;
        }
        if (text->size() > kMaxSourceBytes)
            text->resize(kMaxSourceBytes);
        SourceFile sf;
        sf.id = static_cast<uint32_t>(s.sourceFiles.size() + 1);
        sf.path = file;
        sf.text = std::move(*text);
        s.sourceFiles.push_back(std::move(sf));
    }

    sum.functions = s.sassFunctions.size();
    sum.instructions = s.sassInstructions.size();
    sum.counters = s.sourceCounters.size();
    sum.sourceFiles = s.sourceFiles.size();
    s.meta["source_counters"] = "pc_sampling";
    return sum;
}

} // namespace ws
