"""Charts: axes and values, per-day bars placed by date, long sessions aggregated with every
error still visible, no links inside the picture and a data table that links the steps."""
from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from sitetools import soup

from replay_site.figures.totals import Group
from replay_site.model import Cost, CostTotal, Session, Step, ToolCall
from replay_site.pages import charts, paging
from replay_site.pages.render import Renderer

SLUG = "long-0000"
PAGE = paging.page_path(SLUG)


def long_session(steps: int = 1000, failing_every: int = 97) -> Session:
    """Step n costs n mod 13 tenths of a cent; every `failing_every`-th step has a failed call,
    and step 500 has a step error (and costs nothing)."""
    made = Session("long", "claude")
    for number in range(1, steps + 1):
        call = ToolCall("bash", output="x", is_error=number % failing_every == 0)
        usd = 0.0 if number == 500 else 0.001 * (number % 13)
        made.steps.append(Step("assistant", cost=Cost(usd, "log"), tool_calls=[call], error="boom" if number == 500 else None))
    made.number_steps()
    return made


def render(chart: charts.Chart) -> BeautifulSoup:
    template = Renderer().env.from_string('{% from "macros.html" import chart %}{{ chart(c) }}')
    return BeautifulSoup(template.render(c=chart), "html.parser")


def test_a_long_session_is_drawn_in_at_most_300_bars_and_keeps_every_error():
    session = long_session()
    chart = charts.cost_bars(session, SLUG, PAGE)
    # 1,000 steps: 2 per bar would be 500 bars, so 5 per bar, 200 bars
    assert len(chart.bars) == len(chart.rows) == 200
    failing = {step.number for step in session.steps if step.error_count}
    assert failing == {97 * k for k in range(1, 11)} | {500}
    # the bars keep one neutral colour; the errors are marked in their own row under the axis:
    # one mark per group with an error, at its bar's x, never too thin to see
    assert {bar.css for bar in chart.bars} == {""}
    marked = {mark.label.partition(":")[0] for mark in chart.error_marks}
    assert marked == {f"steps {n - (n - 1) % 5}–{n - (n - 1) % 5 + 4}" for n in failing}
    assert len(chart.error_marks) == len(failing)
    bar_x = {bar.x for row, bar in zip(chart.rows, chart.bars) if row.label in marked}
    assert {mark.x for mark in chart.error_marks} == bar_x
    assert all(mark.width >= charts.MIN_BAR and mark.height > 0 for mark in chart.error_marks)
    # step 500's error is no failed call: its group is marked all the same
    assert any(mark.label == "steps 496–500: 1 error" for mark in chart.error_marks)
    # each bar is the sum of its steps: steps 1–5 cost 1+2+3+4+5 tenths of a cent
    assert chart.rows[0].cells == ["$0.0150", "0"]


def test_data_table_rows_link_the_first_step_of_each_range_on_its_page():
    chart = charts.cost_bars(long_session(), SLUG, PAGE)
    hrefs = [row.href for row in chart.rows]
    assert hrefs[0] == "#step-1"  # on the page the chart is on
    # steps 201–205 live on page 2, sessions/long-0000/2.html, seen from sessions/long-0000.html
    assert hrefs[40] == "long-0000/2.html#step-201"
    assert hrefs[-1] == "long-0000/5.html#step-996"
    assert hrefs == [paging.step_href(SLUG, 1 + 5 * index, PAGE) for index in range(200)]


def test_the_picture_has_no_links_and_the_table_has_them():
    page = render(charts.cost_bars(long_session(), SLUG, PAGE))
    svg = page.select_one("figure.chart > svg")
    assert svg["role"] == "img" and "1,000 steps" in svg["aria-label"] and "11 steps with errors" in svg["aria-label"]
    assert svg.find_all("a") == [] and not svg.select("[tabindex]")
    table = page.select_one("details.chart-data table")
    assert page.select_one("details.chart-data > summary").get_text() == "Data table"
    assert [th.get_text() for th in table.select("thead th")] == ["Steps", "Cost", "Errors"]
    links = [a["href"] for a in table.select("tbody a")]
    assert len(links) == 200 and links[40] == "long-0000/2.html#step-201"
    assert len(svg.select("rect.error-mark")) == 11


def test_axes_carry_values_and_step_numbers():
    chart = charts.cost_bars(long_session(), SLUG, PAGE)
    # the tallest group, steps 21–25 (8+9+10+11+12 tenths of a cent = $0.05), fits under the top tick
    assert [tick.label for tick in chart.y_ticks] == ["$0", "$0.0200", "$0.0400", "$0.0600"]
    assert [tick.at for tick in chart.y_ticks] == sorted((tick.at for tick in chart.y_ticks), reverse=True)
    # x labels: the first step of every 50th bar
    assert [tick.label for tick in chart.x_ticks] == ["1", "251", "501", "751"]
    svg = render(chart).select_one("svg")
    assert [t.get_text() for t in svg.select("g.y-axis text")] == ["$0", "$0.0200", "$0.0400", "$0.0600"]
    assert [t.get_text() for t in svg.select("g.x-axis text")] == ["1", "251", "501", "751", "step"]


def test_a_short_session_has_one_bar_per_step():
    session = long_session(12, failing_every=5)
    chart = charts.cost_bars(session)
    assert [row.label for row in chart.rows] == [f"step {n}" for n in range(1, 13)]
    assert [row.href for row in chart.rows] == [f"#step-{n}" for n in range(1, 13)]
    assert [bar.css for bar in chart.bars] == [""] * 12
    assert [mark.x for mark in chart.error_marks] == [chart.bars[4].x, chart.bars[9].x]
    # a failed step that cost nothing has no bar to colour: the mark under the axis shows it
    session.steps[4].cost = Cost(0.0, "log")
    chart = charts.cost_bars(session)
    assert chart.bars[4].height == 0
    assert [mark.label for mark in chart.error_marks] == ["step 5: 1 error", "step 10: 1 error"]
    assert chart.error_marks[0].x == chart.bars[4].x


def test_long_reward_chart_is_aggregated_too():
    session = long_session(700)
    for step in session.steps:
        step.reward = 1.0 if step.number % 2 else -0.5
    chart = charts.reward_bars(session, SLUG, PAGE)
    assert len(chart.bars) == 140  # 700 rewarded steps, 5 per bar
    # steps 1–5: +1 -0.5 +1 -0.5 +1 = 2; cumulative after step 5 is also 2
    assert chart.rows[0].cells == ["2", "2"]
    # the sum over all steps: 350 × 1 - 350 × 0.5 = 175
    assert chart.rows[-1].cells[1] == "175"
    assert len(chart.error_marks) == 8  # steps 97, 194, ..., 679 and 500 fall in 8 groups


def day(sessions: int, usd: float) -> Group:
    return Group(sessions=sessions, steps=sessions, cost=CostTotal(usd, priced_steps=sessions))


def test_per_day_bars_are_placed_by_date():
    days = {"2026-01-01": day(1, 0.5), "2026-01-02": day(3, 1.0), "2026-01-10": day(2, 0.25)}
    cost, count = charts.day_charts(days)
    assert (cost.title, count.title) == ("Cost per day", "Sessions per day")
    for chart in (cost, count):
        first, second, tenth = (bar.x for bar in chart.bars)
        # ten days on the axis: the 10th is 9 slots from the 1st, 8 from the 2nd (a visible gap)
        assert tenth - second == pytest.approx(8 * (second - first), abs=0.2)
        assert [row.label for row in chart.rows] == list(days)
        assert all(row.href == "" for row in chart.rows)
    # x labels are real dates, every second day over a 10-day span
    assert [tick.label for tick in count.x_ticks] == ["2026-01-01", "2026-01-03", "2026-01-05", "2026-01-07", "2026-01-09"]
    # sessions per day: whole numbers on the y axis
    assert [tick.label for tick in count.y_ticks] == ["0", "1", "2", "3"]
    assert [tick.label for tick in cost.y_ticks] == ["$0", "$0.5000", "$1.0000"]


def test_tiny_costs_never_repeat_an_axis_value():
    days = {"2026-01-01": day(1, 0.00003), "2026-01-02": day(1, 0.00007)}
    labels = [tick.label for tick in charts.day_charts(days)[0].y_ticks]
    assert labels == ["$0", "$0.0001"]


def test_charts_are_deterministic():
    first = render(charts.cost_bars(long_session(), SLUG, PAGE)).decode()
    assert first == render(charts.cost_bars(long_session(), SLUG, PAGE)).decode()


def test_index_day_charts_follow_dates_and_hold_no_links(data_site):
    out = data_site
    index = soup(out / "index.html")
    figures = index.select("figure.chart")
    assert [f.figcaption.contents[0].strip() for f in figures] == ["Cost per day", "Sessions per day"]
    for figure in figures:
        assert figure.select("svg a") == []
        dates = [row.th.get_text() for row in figure.select("details.chart-data tbody tr")]
        # the test sessions start on 41 days, each fixture's first timestamp (2026-09-01: claude/-home-dev-v21
        # and codex/agents-2026; the ATIF, Gemini CLI and Qwen Code ones add 2025-08-01, 2025-11-20,
        # 2026-04-10, 2026-05-03 and 2026-06-01; Claude 2.1.230, Codex 0.148 and rlm's agent 2026-10-01
        # to 10-03 and 10-20; the new agents' fixtures 2025-06-01 to 2026-04-02; three ATIF
        # trajectories have no times); OpenHands, Crush, Hermes, Factory Droid, Amp and Harbor's ATIF
        # fixtures add 7 more (2025-12-06, 2026-02-05, 03-10, 03-20, 08-12, 08-14, 08-20)
        assert dates == sorted(dates) and len(dates) == 48
        labels = [t.get_text() for t in figure.select("g.x-axis text.tick")]
        # 2023-09-14 .. 2026-12-02 is 1,176 days: a label every 365 days from the first
        assert labels == ["2023-09-14", "2024-09-13", "2025-09-13", "2026-09-13"]


def test_absurd_figures_draw_no_chart_instead_of_failing_the_page():
    session = long_session(3)
    session.steps[0].reward, session.steps[1].reward = 1e308, 1e308  # their sum overflows
    assert charts.reward_bars(session) is None
    session.steps[0].cost = session.steps[1].cost = Cost(1e308, "log")
    assert charts.cost_bars(session) is not None  # each group of one step is still finite
    session.steps.extend(long_session(400).steps)
    session.number_steps()  # 403 steps, two per bar: steps 1 and 2 now share one
    assert charts.cost_bars(session) is None
