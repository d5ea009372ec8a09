// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// An arithmetic expression over metric names, for derived metrics in section files:
// numbers, metric names, + - * /, unary minus and parentheses. Parsed once, evaluated per
// kernel. A division by zero or a missing input yields no value (not 0, not inf), so a
// derived figure is never shown for a kernel whose inputs were not collected.
class MetricExpression {
public:
    // Throws std::invalid_argument naming the position and what was expected.
    static MetricExpression parse(std::string_view text);

    MetricExpression();
    ~MetricExpression();
    MetricExpression(const MetricExpression&);
    MetricExpression& operator=(const MetricExpression&);
    MetricExpression(MetricExpression&&) noexcept;
    MetricExpression& operator=(MetricExpression&&) noexcept;

    using Lookup = std::function<std::optional<double>(const std::string& name)>;
    std::optional<double> evaluate(const Lookup& lookup) const;

    // Metric names the expression reads, in order of first appearance.
    const std::vector<std::string>& inputs() const { return m_inputs; }
    const std::string& text() const { return m_text; }

    struct Node;

private:
    std::shared_ptr<const Node> m_root; // immutable once parsed, so copies share it
    std::vector<std::string> m_inputs;
    std::string m_text;
};

} // namespace ws
