"""Site-wide figures, assembled from per-session summaries alone (each session counted once:
subagents are sessions of their own, so adding them again through their parent would
count them twice)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, fields

from replay_site.figures.summary import OUTCOMES, ModelFigures, SessionSummary
from replay_site.model import CostTotal


@dataclass
class Group:
    """Figures of a set of sessions: one project, or one day."""

    sessions: int = 0
    steps: int = 0
    errors: int = 0
    cost: CostTotal = field(default_factory=CostTotal)


@dataclass
class SiteFigures:
    sessions: int = 0
    steps: int = 0
    tool_calls: int = 0
    failed_tool_calls: int = 0
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    warnings: int = 0
    cost: CostTotal = field(default_factory=CostTotal)
    by_day: dict[str, Group] = field(default_factory=dict)
    by_project: dict[str, Group] = field(default_factory=dict)
    by_model: dict[str, ModelFigures] = field(default_factory=dict)
    # Sessions per outcome, every outcome present in OUTCOMES order (zero counts included).
    by_outcome: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))

    @property
    def other_errors(self) -> int:
        """Errors that are not failed tool calls (API errors, a step's own error)."""
        return self.errors - self.failed_tool_calls

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens


# ModelFigures' fields, named once: fields() per model of every session cost a rebuild ~10 ms.
_MODEL_FIELDS = tuple(item.name for item in fields(ModelFigures))
_SUMMED = ("steps", "tool_calls", "failed_tool_calls", "errors", "input_tokens", "output_tokens",
           "cache_read_tokens", "cache_write_tokens", "warnings")


def _cost(summary: SessionSummary) -> CostTotal:
    return CostTotal(summary.cost_usd or 0.0, summary.priced_steps, summary.estimated_steps,
                     summary.unpriced_steps, tuple(summary.unpriced_models), summary.partial_steps)


def _count(group: Group, summary: SessionSummary) -> None:
    group.sessions += 1
    group.steps += summary.steps
    group.errors += summary.errors
    group.cost.merge(_cost(summary))


def site_figures(summaries: list[SessionSummary]) -> SiteFigures:
    figures = SiteFigures(sessions=len(summaries))
    days: dict[str, Group] = defaultdict(Group)
    projects: dict[str, Group] = defaultdict(Group)
    models: dict[str, ModelFigures] = defaultdict(ModelFigures)
    for s in summaries:
        for name in _SUMMED:
            setattr(figures, name, getattr(figures, name) + getattr(s, name))
        figures.cost.merge(_cost(s))
        figures.by_outcome[s.outcome] += 1
        if s.started_at:
            _count(days[s.started_at[:10]], s)
        if s.project:
            _count(projects[s.project], s)
        for name, model in s.by_model.items():
            total = models[name]
            for figure in _MODEL_FIELDS:
                setattr(total, figure, getattr(total, figure) + getattr(model, figure))
    figures.by_day = dict(sorted(days.items()))
    figures.by_project = dict(sorted(projects.items()))
    figures.by_model = dict(sorted(models.items()))
    return figures
