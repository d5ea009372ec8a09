// SPDX-License-Identifier: MIT
#include "core/metrics/sectiondefinition.h"

#include "core/util/textlines.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

namespace ws {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> splitFields(std::string_view s)
{
    std::vector<std::string_view> out;
    size_t pos = 0;
    for (;;) {
        const size_t bar = s.find('|', pos);
        out.push_back(trim(s.substr(pos, bar == std::string_view::npos ? s.npos : bar - pos)));
        if (bar == std::string_view::npos)
            return out;
        pos = bar + 1;
    }
}

bool validMetricName(std::string_view n)
{
    if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n.front())) || n.front() == '_'))
        return false;
    return std::all_of(
        n.begin(), n.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; });
}

std::optional<double> parseNumber(std::string_view s)
{
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::string joined(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

} // namespace

const std::vector<std::string>& SectionParser::panelNames()
{
    static const std::vector<std::string> names = {"launch", "throughput", "scheduler", "memory"};
    return names;
}

bool SectionDefinition::inSet(std::string_view set) const
{
    return std::find(sets.begin(), sets.end(), set) != sets.end();
}

namespace {

// `metric <name> | <label> [| key=value ...]` or `derived <name> | <label> | <expr> [| ...]`
// inside a `panel` block. `fail` throws.
template <typename Fail>
PanelRow parsePanelRow(std::string_view keyword, std::string_view rest, int lineNo, const Fail& fail)
{
    const auto fields = splitFields(rest);
    PanelRow row;
    row.line = lineNo;
    row.derived = keyword == "derived";
    row.name = std::string(fields[0]);
    if (!validMetricName(row.name))
        fail("bad metric name '" + row.name + "'");
    if (fields.size() < 2 || fields[1].empty())
        fail("panel row '" + row.name + "' needs a label: " + std::string(keyword) + " <name> | <label>");
    row.label = std::string(fields[1]);
    auto expression = [&](std::string_view text) {
        try {
            return MetricExpression::parse(text);
        } catch (const std::invalid_argument& e) {
            fail(e.what());
        }
        return MetricExpression();
    };
    size_t firstOption = 2;
    if (row.derived) {
        if (fields.size() < 3 || fields[2].empty())
            fail("derived row '" + row.name + "' needs an expression: derived <name> | <label> | <expr>");
        row.expression = expression(fields[2]);
        firstOption = 3;
    }
    for (size_t i = firstOption; i < fields.size(); ++i) {
        const auto f = fields[i];
        const size_t eq = f.find('=');
        if (eq == std::string_view::npos)
            fail("expected key=value, found '" + std::string(f) + "'");
        const auto key = trim(f.substr(0, eq));
        const auto value = trim(f.substr(eq + 1));
        if (key == "unit") {
            row.unit = std::string(value);
        } else if (key == "tip") {
            row.tip = std::string(value);
        } else if (key == "digits") {
            const auto v = parseNumber(value);
            if (!v || *v < 1 || *v > 15 || *v != static_cast<int>(*v))
                fail("'digits' needs a whole number from 1 to 15, found '" + std::string(value) + "'");
            row.digits = static_cast<int>(*v);
        } else if (key == "divide") {
            const auto v = parseNumber(value);
            if (!v || *v == 0)
                fail("'divide' needs a non-zero number, found '" + std::string(value) + "'");
            row.divide = *v;
        } else if (key == "from") {
            if (value == "profile")
                row.source = PanelRow::Source::Profile;
            else if (value == "record")
                row.source = PanelRow::Source::Record;
            else if (value == "profile,record")
                row.source = PanelRow::Source::ProfileThenRecord;
            else
                fail("unknown 'from' '" + std::string(value) + "' (profile, record, profile,record)");
        } else if (key == "else") {
            row.fallback = expression(value);
        } else {
            fail("unknown key '" + std::string(key) + "' in a panel row (unit, digits, divide, from, tip, else)");
        }
    }
    return row;
}

} // namespace

SectionDefinition SectionParser::parse(std::string_view text, const std::string& fileName)
{
    SectionDefinition def;
    def.fileName = fileName;
    int lineNo = 0;
    auto fail = [&](const std::string& what) -> void {
        throw SectionFileError(fileName + ":" + std::to_string(lineNo) + ": " + what);
    };
    // Where `metric` and `derived` lines go: the last `group` (collected) or `panel` (shown).
    bool inPanel = false;
    TextLines lines(text);
    std::string_view line;
    while (lines.next(line)) {
        lineNo = lines.number();
        line = trim(line);
        if (line.empty() || line.front() == '#')
            continue;
        const size_t sp = line.find_first_of(" \t");
        const std::string_view keyword = line.substr(0, sp);
        const std::string_view rest = sp == std::string_view::npos ? std::string_view() : trim(line.substr(sp));

        if (def.id.empty() && keyword != "section")
            fail("the first statement must be 'section <Identifier>', found '" + std::string(keyword) + "'");
        if (keyword == "section") {
            if (!def.id.empty())
                fail("a second 'section' statement; one section per file");
            if (rest.empty() || rest.find_first_of(" \t|") != std::string_view::npos)
                fail("'section' needs one identifier without spaces");
            def.id = std::string(rest);
        } else if (keyword == "title") {
            def.title = std::string(rest);
        } else if (keyword == "description") {
            def.description = std::string(rest);
        } else if (keyword == "order") {
            int v = 0;
            auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
            if (ec != std::errc() || p != rest.data() + rest.size())
                fail("'order' needs an integer, found '" + std::string(rest) + "'");
            def.order = v;
        } else if (keyword == "sets") {
            std::istringstream in {std::string(rest)};
            std::string s;
            while (in >> s)
                def.sets.push_back(s);
        } else if (keyword == "group") {
            if (rest.empty())
                fail("'group' needs a title");
            def.groups.push_back({std::string(rest), {}});
            inPanel = false;
        } else if (keyword == "panel") {
            const auto fields = splitFields(rest);
            const auto& names = panelNames();
            if (std::find(names.begin(), names.end(), fields[0]) == names.end())
                fail("unknown panel '" + std::string(fields[0]) + "' (" + joined(names) + ")");
            if (fields.size() != 2 || fields[1].empty())
                fail("'panel' needs a panel and a heading: panel <panel> | <heading>");
            def.panels.push_back({std::string(fields[0]), std::string(fields[1]), {}});
            inPanel = true;
        } else if (inPanel && (keyword == "metric" || keyword == "derived")) {
            def.panels.back().rows.push_back(parsePanelRow(keyword, rest, lineNo, fail));
        } else if (keyword == "metric" || keyword == "breakdown" || keyword == "derived") {
            if (inPanel)
                fail("'breakdown' inside a 'panel' block; panels show 'metric' and 'derived' lines");
            if (def.groups.empty())
                fail("'" + std::string(keyword) + "' before any 'group'");
            const auto fields = splitFields(rest);
            SectionItem item;
            item.line = lineNo;
            item.name = std::string(fields[0]);
            if (!validMetricName(item.name))
                fail("bad metric name '" + item.name + "'");
            if (fields.size() < 2 || fields[1].empty())
                fail("'" + item.name + "' needs a label: " + std::string(keyword) + " <name> | <label>");
            item.label = std::string(fields[1]);
            size_t firstOption = 2;
            if (keyword == "breakdown") {
                item.kind = SectionItem::Kind::Breakdown;
            } else if (keyword == "derived") {
                item.kind = SectionItem::Kind::Derived;
                if (fields.size() < 3 || fields[2].empty())
                    fail("derived metric '" + item.name + "' needs an expression: derived <name> | <label> | <expr>");
                try {
                    item.expression = MetricExpression::parse(fields[2]);
                } catch (const std::invalid_argument& e) {
                    fail(e.what());
                }
                firstOption = 3;
            }
            for (size_t i = firstOption; i < fields.size(); ++i) {
                const auto f = fields[i];
                const size_t eq = f.find('=');
                if (eq == std::string_view::npos)
                    fail("expected key=value, found '" + std::string(f) + "'");
                const auto key = trim(f.substr(0, eq));
                const auto value = trim(f.substr(eq + 1));
                if (key == "arch") {
                    try {
                        item.arch = ArchFilter::parse(value);
                    } catch (const std::invalid_argument& e) {
                        fail(e.what());
                    }
                } else if (key == "unit") {
                    item.unit = std::string(value);
                } else if (key == "source") {
                    if (value != "launch")
                        fail("unknown source '" + std::string(value) + "' (only 'launch')");
                    if (item.kind != SectionItem::Kind::Counter)
                        fail("source=launch applies to 'metric' lines only");
                    item.kind = SectionItem::Kind::Launch;
                } else {
                    fail("unknown key '" + std::string(key) + "' (arch, unit, source)");
                }
            }
            def.groups.back().items.push_back(std::move(item));
        } else {
            fail("unknown statement '" + std::string(keyword) + "'");
        }
    }
    if (def.id.empty())
        throw SectionFileError(fileName + ": no 'section' statement");
    if (def.title.empty())
        def.title = def.id;
    return def;
}

SectionDefinition SectionParser::parseFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw SectionFileError(path + ": cannot open section file");
    std::ostringstream buf;
    buf << in.rdbuf();
    return parse(buf.str(), path);
}

} // namespace ws
