// SPDX-License-Identifier: MIT
#include "core/metrics/metricexpression.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace ws {

struct MetricExpression::Node {
    enum class Kind { Number, Metric, Neg, Add, Sub, Mul, Div } kind = Kind::Number;
    double number = 0;
    std::string name;
    std::shared_ptr<const Node> lhs;
    std::shared_ptr<const Node> rhs;
};

namespace {

using NodePtr = std::shared_ptr<const MetricExpression::Node>;
using Kind = MetricExpression::Node::Kind;

bool isNameChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':';
}

// Recursive descent: expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*;
// unary := '-' unary | primary; primary := number | name | '(' expr ')'.
class Parser {
public:
    Parser(std::string_view text, std::vector<std::string>& inputs)
        : m_text(text)
        , m_inputs(inputs)
    {
    }

    NodePtr parseAll()
    {
        NodePtr n = expr();
        skipSpace();
        if (m_pos != m_text.size())
            fail("unexpected '" + std::string(1, m_text[m_pos]) + "'");
        return n;
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw std::invalid_argument(
            "expression '" + std::string(m_text) + "', at offset " + std::to_string(m_pos) + ": " + what);
    }
    void skipSpace()
    {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }
    static NodePtr binary(Kind k, NodePtr a, NodePtr b)
    {
        auto n = std::make_shared<MetricExpression::Node>();
        n->kind = k;
        n->lhs = std::move(a);
        n->rhs = std::move(b);
        return n;
    }
    NodePtr expr()
    {
        NodePtr n = term();
        for (;;) {
            skipSpace();
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) {
                const Kind k = m_text[m_pos++] == '+' ? Kind::Add : Kind::Sub;
                n = binary(k, n, term());
            } else {
                return n;
            }
        }
    }
    NodePtr term()
    {
        NodePtr n = unary();
        for (;;) {
            skipSpace();
            if (m_pos < m_text.size() && (m_text[m_pos] == '*' || m_text[m_pos] == '/')) {
                const Kind k = m_text[m_pos++] == '*' ? Kind::Mul : Kind::Div;
                n = binary(k, n, unary());
            } else {
                return n;
            }
        }
    }
    NodePtr unary()
    {
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == '-') {
            ++m_pos;
            auto n = std::make_shared<MetricExpression::Node>();
            n->kind = Kind::Neg;
            n->lhs = unary();
            return n;
        }
        return primary();
    }
    NodePtr primary()
    {
        skipSpace();
        if (m_pos >= m_text.size())
            fail("expected a number, a metric name or '('");
        const char c = m_text[m_pos];
        if (c == '(') {
            ++m_pos;
            NodePtr n = expr();
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ')')
                fail("expected ')'");
            ++m_pos;
            return n;
        }
        auto n = std::make_shared<MetricExpression::Node>();
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            const char* begin = m_text.data() + m_pos;
            auto [p, ec] = std::from_chars(begin, m_text.data() + m_text.size(), n->number);
            if (ec != std::errc())
                fail("bad number");
            m_pos += static_cast<size_t>(p - begin);
            n->kind = Kind::Number;
            return n;
        }
        if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_')
            fail("expected a number, a metric name or '('");
        const size_t start = m_pos;
        while (m_pos < m_text.size() && isNameChar(m_text[m_pos]))
            ++m_pos;
        n->kind = Kind::Metric;
        n->name = std::string(m_text.substr(start, m_pos - start));
        if (std::find(m_inputs.begin(), m_inputs.end(), n->name) == m_inputs.end())
            m_inputs.push_back(n->name);
        return n;
    }

    std::string_view m_text;
    size_t m_pos = 0;
    std::vector<std::string>& m_inputs;
};

std::optional<double> eval(const MetricExpression::Node& n, const MetricExpression::Lookup& lookup)
{
    switch (n.kind) {
    case Kind::Number:
        return n.number;
    case Kind::Metric:
        return lookup(n.name);
    case Kind::Neg: {
        auto v = eval(*n.lhs, lookup);
        if (!v)
            return std::nullopt;
        return -*v;
    }
    default:
        break;
    }
    const auto a = eval(*n.lhs, lookup);
    const auto b = eval(*n.rhs, lookup);
    if (!a || !b)
        return std::nullopt;
    switch (n.kind) {
    case Kind::Add:
        return *a + *b;
    case Kind::Sub:
        return *a - *b;
    case Kind::Mul:
        return *a * *b;
    case Kind::Div:
        if (*b == 0)
            return std::nullopt;
        return *a / *b;
    default:
        return std::nullopt;
    }
}

} // namespace

MetricExpression::MetricExpression() = default;
MetricExpression::~MetricExpression() = default;
MetricExpression::MetricExpression(const MetricExpression&) = default;
MetricExpression& MetricExpression::operator=(const MetricExpression&) = default;
MetricExpression::MetricExpression(MetricExpression&&) noexcept = default;
MetricExpression& MetricExpression::operator=(MetricExpression&&) noexcept = default;

MetricExpression MetricExpression::parse(std::string_view text)
{
    MetricExpression e;
    e.m_text = std::string(text);
    Parser p(e.m_text, e.m_inputs);
    e.m_root = p.parseAll();
    return e;
}

std::optional<double> MetricExpression::evaluate(const Lookup& lookup) const
{
    if (!m_root)
        return std::nullopt;
    auto v = eval(*m_root, lookup);
    if (v && !std::isfinite(*v))
        return std::nullopt;
    return v;
}

} // namespace ws
