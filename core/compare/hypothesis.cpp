// SPDX-License-Identifier: MIT
#include "core/compare/hypothesis.h"

#include "core/store/metaupdate.h"
#include "core/store/schema.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace ws::compare {

namespace fs = std::filesystem;

const char* directionName(Hypothesis::Direction d)
{
    switch (d) {
    case Hypothesis::Direction::Up:
        return "up";
    case Hypothesis::Direction::Down:
        return "down";
    case Hypothesis::Direction::Same:
        return "same";
    }
    return "?";
}

namespace {

std::optional<Hypothesis::Direction> parseDirection(std::string_view s)
{
    if (s == "up" || s == "+" || s == "higher" || s == "increase")
        return Hypothesis::Direction::Up;
    if (s == "down" || s == "-" || s == "lower" || s == "decrease")
        return Hypothesis::Direction::Down;
    if (s == "same" || s == "=" || s == "unchanged")
        return Hypothesis::Direction::Same;
    return std::nullopt;
}

std::string trimmed(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::optional<double> parseSize(std::string s)
{
    s = trimmed(s);
    if (!s.empty() && s.back() == '%')
        s.pop_back();
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !(v > 0) || v > 1e6)
        return std::nullopt;
    return v;
}

} // namespace

Hypothesis parseHypothesis(const std::string& text)
{
    // From the right: kernel names may contain ':' ("at::native::..."), directions and sizes not.
    std::string rest = trimmed(text);
    Hypothesis h;
    auto colon = rest.rfind(':');
    if (colon == std::string::npos)
        throw std::invalid_argument("prediction '" + text + "': expected SUBJECT[@KERNEL]:up|down|same[:SIZE%]");
    std::string last = trimmed(rest.substr(colon + 1));
    if (auto d = parseDirection(last)) {
        h.direction = *d;
        rest = rest.substr(0, colon);
    } else {
        const auto size = parseSize(last);
        const auto prev = colon == 0 ? std::string::npos : rest.rfind(':', colon - 1);
        const auto dir = prev == std::string::npos ? std::nullopt
                                                   : parseDirection(trimmed(rest.substr(prev + 1, colon - prev - 1)));
        if (!size || !dir)
            throw std::invalid_argument("prediction '" + text + "': '" + last
                + "' is neither a direction (up, down, same) nor a size after one (e.g. down:10%)");
        h.direction = *dir;
        h.sizePct = *size;
        rest = rest.substr(0, prev);
    }
    const auto at = rest.find('@');
    h.subject = trimmed(rest.substr(0, at));
    if (at != std::string::npos)
        h.kernel = trimmed(rest.substr(at + 1));
    if (h.subject.empty())
        throw std::invalid_argument("prediction '" + text + "': no subject (latency, time@KERNEL or a metric name)");
    if (h.subject == "time" && h.kernel.empty())
        throw std::invalid_argument("prediction '" + text + "': time needs a kernel (time@NAME)");
    if (h.subject == "latency" && !h.kernel.empty())
        throw std::invalid_argument("prediction '" + text + "': latency is the whole comparison's; use time@KERNEL");
    return h;
}

std::string formatHypothesis(const Hypothesis& h)
{
    std::string s = h.subject;
    if (!h.kernel.empty())
        s += "@" + h.kernel;
    s += ":";
    s += directionName(h.direction);
    if (h.sizePct) {
        char buf[32];
        std::snprintf(buf, sizeof buf, ":%g%%", *h.sizePct);
        s += buf;
    }
    return s;
}

std::string hypothesesToJson(const std::vector<Hypothesis>& list)
{
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartArray();
    for (const auto& h : list) {
        w.StartObject();
        w.Key("subject");
        w.String(h.subject.c_str(), static_cast<rapidjson::SizeType>(h.subject.size()));
        w.Key("kernel");
        w.String(h.kernel.c_str(), static_cast<rapidjson::SizeType>(h.kernel.size()));
        w.Key("direction");
        w.String(directionName(h.direction));
        if (h.sizePct) {
            w.Key("size_pct");
            w.Double(*h.sizePct);
        }
        w.EndObject();
    }
    w.EndArray();
    return {buf.GetString(), buf.GetSize()};
}

std::vector<Hypothesis> hypothesesFromJson(const std::string& json)
{
    rapidjson::Document doc;
    doc.Parse(json.c_str(), json.size());
    if (doc.HasParseError())
        throw std::invalid_argument(std::string("hypotheses: ") + rapidjson::GetParseError_En(doc.GetParseError())
            + " at offset " + std::to_string(doc.GetErrorOffset()));
    if (!doc.IsArray())
        throw std::invalid_argument("hypotheses: expected a JSON array");
    std::vector<Hypothesis> out;
    for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
        const auto& o = doc[i];
        const std::string where = "hypotheses[" + std::to_string(i) + "]";
        if (!o.IsObject() || !o.HasMember("subject") || !o["subject"].IsString() || !o.HasMember("direction")
            || !o["direction"].IsString())
            throw std::invalid_argument(where + ": needs string fields subject and direction");
        Hypothesis h;
        h.subject = o["subject"].GetString();
        if (o.HasMember("kernel") && o["kernel"].IsString())
            h.kernel = o["kernel"].GetString();
        const auto d = parseDirection(o["direction"].GetString());
        if (!d)
            throw std::invalid_argument(where + ": direction '" + o["direction"].GetString() + "' is not up/down/same");
        h.direction = *d;
        if (o.HasMember("size_pct")) {
            if (!o["size_pct"].IsNumber() || !(o["size_pct"].GetDouble() > 0))
                throw std::invalid_argument(where + ": size_pct must be a positive number");
            h.sizePct = o["size_pct"].GetDouble();
        }
        if (h.subject.empty())
            throw std::invalid_argument(where + ": empty subject");
        out.push_back(std::move(h));
    }
    return out;
}

void saveHypotheses(const std::string& sessionPath, const std::vector<Hypothesis>& list)
{
    store::updateSessionMeta(sessionPath, kHypothesesMetaKey, hypothesesToJson(list), "saving hypotheses");
}

} // namespace ws::compare
