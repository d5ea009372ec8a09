// SPDX-License-Identifier: MIT
#include "core/source/sourceview.h"

#include "core/source/stallreasonname.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace ws {

namespace {

constexpr std::string_view kInstExecuted = "inst_executed";

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos <= text.size()) {
        const size_t nl = text.find('\n', pos);
        std::string l = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        if (!l.empty() && l.back() == '\r')
            l.pop_back();
        lines.push_back(std::move(l));
        if (nl == std::string::npos)
            break;
        pos = nl + 1;
    }
    // A file ending in '\n' has no empty last line.
    if (lines.size() > 1 && lines.back().empty())
        lines.pop_back();
    return lines;
}

} // namespace

SourceView::SourceView(
    const SourceTables& t, const StringTable& strings, int64_t kernelId, const std::string& kernelName)
{
    // Counters of this launch: per (function, pc), per counter name.
    std::map<std::pair<uint32_t, uint64_t>, std::map<std::string, int64_t>> byPc;
    std::set<uint32_t> functions;
    std::map<std::string, int64_t> reasonTotals;
    for (const auto& c : t.counters) {
        if (c.kernelId != kernelId || c.counter >= strings.size())
            continue;
        const std::string& name = strings.at(c.counter);
        byPc[{c.functionId, c.pcOffset}][name] += c.value;
        functions.insert(c.functionId);
        if (!StallReasonName::key(name).empty() && !StallReasonName::isNotIssued(name))
            reasonTotals[name] += c.value;
    }
    for (const auto& f : t.functions) {
        if (f.name < strings.size() && strings.at(f.name) == kernelName && !kernelName.empty())
            functions.insert(f.id);
    }
    for (const auto& [name, n] : reasonTotals) {
        if (n > 0)
            m_reasons.push_back(name);
    }
    std::stable_sort(m_reasons.begin(), m_reasons.end(),
        [&](const std::string& a, const std::string& b) { return reasonTotals[a] > reasonTotals[b]; });
    std::map<std::string, size_t> reasonSlot;
    for (size_t i = 0; i < m_reasons.size(); ++i) {
        reasonSlot[m_reasons[i]] = i;
        m_reasonTotals.push_back(reasonTotals[m_reasons[i]]);
    }
    m_total = std::accumulate(m_reasonTotals.begin(), m_reasonTotals.end(), int64_t(0));

    std::map<StringId, int> fileIndex;
    auto fileOf = [&](StringId path) {
        auto [it, fresh] = fileIndex.try_emplace(path, static_cast<int>(m_files.size()));
        if (fresh) {
            File f;
            f.path = path < strings.size() ? strings.at(path) : std::string();
            m_files.push_back(std::move(f));
        }
        return it->second;
    };

    // Instructions of the functions in play, in (function, pc) order as stored.
    std::vector<const SassInstruction*> instructions;
    for (const auto& in : t.instructions) {
        if (functions.count(in.functionId))
            instructions.push_back(&in);
    }
    std::stable_sort(instructions.begin(), instructions.end(), [](const auto* a, const auto* b) {
        return std::tie(a->functionId, a->pcOffset) < std::tie(b->functionId, b->pcOffset);
    });
    std::set<std::pair<uint32_t, uint64_t>> listed;
    for (const auto* in : instructions)
        listed.insert({in->functionId, in->pcOffset});

    auto makeRow = [&](uint32_t fn, uint64_t pc, const std::string& text, StringId file, int32_t line) {
        SassRow r;
        r.functionId = fn;
        r.pcOffset = pc;
        r.text = text;
        r.line = line;
        r.fileIndex = line > 0 && file != 0 ? fileOf(file) : -1;
        r.samples.assign(m_reasons.size(), 0);
        if (auto it = byPc.find({fn, pc}); it != byPc.end()) {
            for (const auto& [name, n] : it->second) {
                if (name == kInstExecuted) {
                    r.instExecuted = n;
                } else if (StallReasonName::isNotIssued(name)) {
                    r.notIssued += n;
                } else if (auto slot = reasonSlot.find(name); slot != reasonSlot.end()) {
                    r.samples[slot->second] += n;
                    r.total += n;
                }
            }
        }
        m_maxRow = std::max(m_maxRow, r.total);
        return r;
    };

    for (const auto* in : instructions)
        m_rows.push_back(makeRow(in->functionId, in->pcOffset, in->text, in->file, in->line));
    // Sampled PCs the instruction table lacks still count.
    for (const auto& [key, counters] : byPc) {
        if (!listed.count(key))
            m_rows.push_back(makeRow(key.first, key.second, std::string(), 0, 0));
    }
    std::stable_sort(m_rows.begin(), m_rows.end(), [](const SassRow& a, const SassRow& b) {
        return std::tie(a.functionId, a.pcOffset) < std::tie(b.functionId, b.pcOffset);
    });

    for (const auto& f : t.functions) {
        if (!functions.count(f.id))
            continue;
        Function fn;
        fn.id = f.id;
        fn.name = f.name < strings.size() ? strings.at(f.name) : std::string();
        fn.disassembler = f.disassembler;
        const auto first
            = std::find_if(m_rows.begin(), m_rows.end(), [&](const SassRow& r) { return r.functionId == f.id; });
        fn.firstRow = static_cast<size_t>(first - m_rows.begin());
        fn.rowCount = static_cast<size_t>(
            std::count_if(m_rows.begin(), m_rows.end(), [&](const SassRow& r) { return r.functionId == f.id; }));
        m_functions.push_back(std::move(fn));
    }

    // Source lines: the whole file where its text was recorded, else the lines the table names.
    std::map<StringId, const SourceFile*> textOf;
    for (const auto& sf : t.files)
        textOf[sf.path] = &sf;
    for (const auto& [path, index] : fileIndex) {
        File& f = m_files[static_cast<size_t>(index)];
        int32_t maxLine = 0;
        for (const auto& r : m_rows) {
            if (r.fileIndex == index)
                maxLine = std::max(maxLine, r.line);
        }
        std::vector<std::string> text;
        if (auto it = textOf.find(path); it != textOf.end()) {
            text = splitLines(it->second->text);
            f.haveText = true;
        }
        const auto lineCount = std::max<size_t>(text.size(), static_cast<size_t>(maxLine));
        f.lines.resize(lineCount);
        for (size_t i = 0; i < lineCount; ++i) {
            f.lines[i].line = static_cast<int32_t>(i + 1);
            if (i < text.size())
                f.lines[i].text = text[i];
            f.lines[i].samples.assign(m_reasons.size(), 0);
        }
        for (size_t ri = 0; ri < m_rows.size(); ++ri) {
            const SassRow& r = m_rows[ri];
            if (r.fileIndex != index || r.line <= 0)
                continue;
            LineRow& l = f.lines[static_cast<size_t>(r.line - 1)];
            l.sassRows.push_back(ri);
            for (size_t k = 0; k < r.samples.size(); ++k)
                l.samples[k] += r.samples[k];
            l.total += r.total;
            f.total += r.total;
            m_maxLine = std::max(m_maxLine, l.total);
        }
    }
}

int SourceView::reasonIndex(const std::string& keyOrName) const
{
    std::string k = StallReasonName::key(keyOrName);
    if (k.empty())
        k = keyOrName;
    for (size_t i = 0; i < m_reasons.size(); ++i) {
        if (StallReasonName::key(m_reasons[i]) == k)
            return static_cast<int>(i);
    }
    return -1;
}

std::vector<size_t> SourceView::hottest(size_t n) const
{
    std::vector<size_t> idx;
    for (size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].total > 0)
            idx.push_back(i);
    }
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return m_rows[a].total > m_rows[b].total; });
    if (idx.size() > n)
        idx.resize(n);
    return idx;
}

std::vector<size_t> SourceView::hottestCovering(double fraction) const
{
    std::vector<size_t> all = hottest(m_rows.size());
    std::vector<size_t> out;
    int64_t sum = 0;
    const double goal = fraction * static_cast<double>(m_total);
    for (size_t i : all) {
        if (static_cast<double>(sum) >= goal && !out.empty())
            break;
        out.push_back(i);
        sum += m_rows[i].total;
    }
    return out;
}

int SourceView::dominantReason(const std::vector<int64_t>& samples) const
{
    int best = -1;
    int64_t most = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
        if (samples[i] > most) {
            most = samples[i];
            best = static_cast<int>(i);
        }
    }
    return best;
}

std::vector<size_t> SourceView::rowsWithReason(int reason, double minShare) const
{
    std::vector<size_t> out;
    if (reason < 0 || static_cast<size_t>(reason) >= m_reasons.size())
        return out;
    for (size_t i = 0; i < m_rows.size(); ++i) {
        const auto& r = m_rows[i];
        const int64_t n = r.samples[static_cast<size_t>(reason)];
        if (n > 0 && static_cast<double>(n) >= minShare * static_cast<double>(r.total))
            out.push_back(i);
    }
    return out;
}

std::pair<int, int32_t> SourceView::hottestLine() const
{
    std::pair<int, int32_t> best {-1, 0};
    int64_t most = 0;
    for (size_t f = 0; f < m_files.size(); ++f) {
        for (const auto& l : m_files[f].lines) {
            if (l.total > most) {
                most = l.total;
                best = {static_cast<int>(f), l.line};
            }
        }
    }
    return best;
}

std::pair<int, int32_t> SourceView::hottestLineFor(int reason) const
{
    std::pair<int, int32_t> best {-1, 0};
    if (reason < 0 || static_cast<size_t>(reason) >= m_reasons.size())
        return best;
    int64_t most = 0;
    for (size_t f = 0; f < m_files.size(); ++f) {
        for (const auto& l : m_files[f].lines) {
            const int64_t n = l.samples[static_cast<size_t>(reason)];
            if (n > most) {
                most = n;
                best = {static_cast<int>(f), l.line};
            }
        }
    }
    return best;
}

} // namespace ws
