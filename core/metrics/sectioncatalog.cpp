// SPDX-License-Identifier: MIT
#include "core/metrics/sectioncatalog.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace ws {

namespace fs = std::filesystem;

namespace {

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    });
}

template <typename T> std::string joinNames(const std::vector<T>& items)
{
    std::string out;
    for (const auto& i : items) {
        if (!out.empty())
            out += ", ";
        out += i;
    }
    return out;
}

} // namespace

std::vector<std::string> MetricRequest::allNames() const
{
    std::vector<std::string> out;
    auto add = [&](const std::string& n) {
        if (std::find(out.begin(), out.end(), n) == out.end())
            out.push_back(n);
    };
    for (const auto& c : counters)
        add(c.breakdown ? "breakdown:" + c.name : c.name);
    for (const auto& l : launchMetrics)
        add(l.name);
    for (const auto& d : derivedMetrics)
        add(d.name);
    return out;
}

SectionCatalog::SectionCatalog(std::vector<SectionDefinition> sections)
    : m_sections(std::move(sections))
{
    std::stable_sort(m_sections.begin(), m_sections.end(),
        [](const SectionDefinition& a, const SectionDefinition& b) { return a.order < b.order; });
}

SectionCatalog SectionCatalog::loadDirectory(const std::string& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw SectionFileError(dir + ": section directory not found");
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.is_regular_file() && e.path().extension() == ".section")
            files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    std::vector<SectionDefinition> defs;
    for (const auto& f : files) {
        auto def = SectionParser::parseFile(f);
        for (const auto& d : defs) {
            if (iequals(d.id, def.id))
                throw SectionFileError(f + ": section '" + def.id + "' is already defined in " + d.fileName);
        }
        defs.push_back(std::move(def));
    }
    if (defs.empty())
        throw SectionFileError(dir + ": no *.section files");
    return SectionCatalog(std::move(defs));
}

std::string SectionCatalog::defaultDirectory(const std::string& executablePath)
{
    if (const char* env = std::getenv("WS_SECTIONS_DIR"); env && *env)
        return env;
    std::error_code ec;
    if (!executablePath.empty()) {
        const fs::path installed = fs::path(executablePath).parent_path() / ".." / "share" / "warpscope" / "sections";
        if (fs::is_directory(installed, ec))
            return fs::weakly_canonical(installed, ec).string();
    }
#ifdef WS_RESOURCES_DIR
    return std::string(WS_RESOURCES_DIR) + "/sections";
#else
    return "resources/sections";
#endif
}

const SectionDefinition* SectionCatalog::find(std::string_view id) const
{
    for (const auto& s : m_sections) {
        if (iequals(s.id, id))
            return &s;
    }
    return nullptr;
}

std::vector<std::string> SectionCatalog::setNames() const
{
    std::set<std::string> names;
    for (const auto& s : m_sections)
        names.insert(s.sets.begin(), s.sets.end());
    return {names.begin(), names.end()};
}

std::vector<const SectionDefinition*> SectionCatalog::select(
    const std::vector<std::string>& ids, const std::vector<std::string>& sets) const
{
    std::set<const SectionDefinition*> chosen;
    for (const auto& id : ids) {
        const auto* s = find(id);
        if (!s) {
            std::vector<std::string> known;
            for (const auto& d : m_sections)
                known.push_back(d.id);
            throw std::invalid_argument("unknown section '" + id + "' (known: " + joinNames(known) + ")");
        }
        chosen.insert(s);
    }
    const auto knownSets = setNames();
    for (const auto& set : sets) {
        if (std::find(knownSets.begin(), knownSets.end(), set) == knownSets.end())
            throw std::invalid_argument("unknown set '" + set + "' (known: " + joinNames(knownSets) + ")");
        for (const auto& s : m_sections) {
            if (s.inSet(set))
                chosen.insert(&s);
        }
    }
    std::vector<const SectionDefinition*> out;
    for (const auto& s : m_sections) {
        if (chosen.count(&s))
            out.push_back(&s);
    }
    return out;
}

MetricRequest SectionCatalog::request(
    const std::vector<const SectionDefinition*>& sections, const std::vector<std::string>& extraMetrics) const
{
    MetricRequest req;
    auto addCounter = [&](const std::string& name, const ArchFilter& arch, bool breakdown) {
        MetricRequest::Counter c {name, arch, breakdown};
        if (std::find(req.counters.begin(), req.counters.end(), c) == req.counters.end())
            req.counters.push_back(std::move(c));
    };
    auto hasNamed = [](const std::vector<SectionItem>& items, const std::string& name) {
        return std::any_of(items.begin(), items.end(), [&](const SectionItem& i) { return i.name == name; });
    };
    // A name is computed (not collected) when some section declares it a launch metric.
    auto launchItem = [&](const std::string& name) -> const SectionItem* {
        for (const auto& s : m_sections)
            for (const auto& g : s.groups)
                for (const auto& i : g.items)
                    if (i.kind == SectionItem::Kind::Launch && i.name == name)
                        return &i;
        return nullptr;
    };
    auto derivedItem = [&](const std::string& name) -> const SectionItem* {
        for (const auto& s : m_sections)
            for (const auto& g : s.groups)
                for (const auto& i : g.items)
                    if (i.kind == SectionItem::Kind::Derived && i.name == name)
                        return &i;
        return nullptr;
    };
    // Adds a derived metric after the derived metrics it reads, and the counters it reads.
    std::vector<std::string> visiting;
    auto addDerived = [&](const SectionItem& item, auto& self) -> void {
        if (hasNamed(req.derivedMetrics, item.name))
            return;
        if (std::find(visiting.begin(), visiting.end(), item.name) != visiting.end())
            throw std::invalid_argument("derived metric '" + item.name + "' depends on itself");
        visiting.push_back(item.name);
        for (const auto& in : item.expression.inputs()) {
            if (const auto* d = derivedItem(in))
                self(*d, self);
            else if (const auto* l = launchItem(in)) {
                if (!hasNamed(req.launchMetrics, l->name))
                    req.launchMetrics.push_back(*l);
            } else
                addCounter(in, item.arch, false);
        }
        visiting.pop_back();
        req.derivedMetrics.push_back(item);
    };

    for (const auto* s : sections) {
        req.sectionIds.push_back(s->id);
        for (const auto& g : s->groups) {
            for (const auto& i : g.items) {
                switch (i.kind) {
                case SectionItem::Kind::Counter:
                    addCounter(i.name, i.arch, false);
                    break;
                case SectionItem::Kind::Breakdown:
                    addCounter(i.name, i.arch, true);
                    break;
                case SectionItem::Kind::Launch:
                    if (!hasNamed(req.launchMetrics, i.name))
                        req.launchMetrics.push_back(i);
                    break;
                case SectionItem::Kind::Derived:
                    addDerived(i, addDerived);
                    break;
                }
            }
        }
    }
    for (const auto& m : extraMetrics) {
        if (m.empty())
            continue;
        if (m.rfind("breakdown:", 0) == 0) {
            addCounter(m.substr(10), ArchFilter(), true);
        } else if (const auto* l = launchItem(m)) {
            if (!hasNamed(req.launchMetrics, l->name))
                req.launchMetrics.push_back(*l);
        } else if (const auto* d = derivedItem(m)) {
            addDerived(*d, addDerived);
        } else {
            addCounter(m, ArchFilter(), false);
        }
    }
    return req;
}

std::optional<SectionCatalog::Placement> SectionCatalog::placement(std::string_view metricName) const
{
    for (const auto& s : m_sections)
        for (const auto& g : s.groups)
            for (const auto& i : g.items)
                if (i.kind != SectionItem::Kind::Breakdown && i.name == metricName)
                    return Placement {&s, &i};
    return std::nullopt;
}

std::vector<const PanelBlock*> SectionCatalog::panelBlocks(std::string_view panel) const
{
    std::vector<const PanelBlock*> out;
    for (const auto& s : m_sections)
        for (const auto& b : s.panels)
            if (b.panel == panel)
                out.push_back(&b);
    return out;
}

} // namespace ws
