"""One ATIF trajectory object -> a Session (subagent trajectories as its children).

ATIF's fields (Harbor RFC 0001, v1.0 … v1.8): `steps` of source user, agent or system; an
agent step's `tool_calls` answered by its `observation.results` (`source_call_id`), a result
naming delegated subagents (`subagent_trajectory_ref`: an embedded `trajectory_id`, or a
`trajectory_path` to another file); `metrics` per step, whose `prompt_tokens` counts every
input token, `cached_tokens` the cache reads among them (cache writes, as Harbor's converters
write them, in `metrics.extra.cache_creation_input_tokens`). What replay-site wrote itself
under `extra.replay_site` (atif_export.py) restores what ATIF has no field for.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from replay_site.model import Cost, Detail, Fact, FileChange, Image, PullRequest, Session, Step, TodoItem, ToolCall, Usage, Variable
from replay_site.readers.fields import count, first_request, listed, mapping, mark_unanswered, number, raw_json, string, text, user_prompts
from replay_site.readers.timestamps import parse_time, utc_time

FORMAT = "atif"
EXTRA = "replay_site"  # what atif_export.py writes for replay-site alone
KIND_OF_SOURCE = {"user": "user", "agent": "assistant", "system": "context"}
KINDS = ("user", "assistant", "context", "event")
CHANGE_KINDS = ("add", "modify", "delete", "rename")
# Subagents nest subagents; past this depth a trajectory is shown as a raw stub, never recursed into.
MAX_DEPTH = 50
# Keys of an observation result's `extra` that other writers use to say a call failed.
_FAILED_STATUS = ("error", "failed", "failure", "cancelled", "timeout")

Loader = Callable[[str], "list[dict[str, Any]] | None"]  # a trajectory_path -> the trajectories of that file


def ours(value: Any) -> dict[str, Any]:
    """The `extra.replay_site` object of an ATIF object (empty for other writers' files)."""
    return mapping(mapping(mapping(value).get("extra")).get(EXTRA))


class TrajectoryReader:
    """Reads trajectories of one source: `load` finds the files that trajectory_path and
    continued_trajectory_ref name (None when the file is not part of the source)."""

    def __init__(self, label: str, load: Loader) -> None:
        self.label = label
        self.load = load
        self._open: list[str] = []  # the files being read, outermost first: a file naming one of them is a loop

    def _from_file(self, name: str, depth: int, parent: Session | None) -> Session | None:
        """The trajectory of the file `name` names, read unless it is already being read (files
        naming each other) or nested too deep; None when it is not part of the source."""
        if name in self._open or depth >= MAX_DEPTH:
            return None
        loaded = self.load(name)
        if not loaded:
            return None
        self._open.append(name)
        try:
            return self.session(loaded[0], name, depth + 1, parent)
        finally:
            self._open.pop()

    def session(self, document: dict[str, Any], fallback_id: str, depth: int = 0, parent: Session | None = None) -> Session:
        mine = ours(document)
        ident = string(document.get("trajectory_id")) if parent else None
        ident = ident or string(document.get("session_id")) or string(document.get("trajectory_id")) or fallback_id
        session = Session(id=ident, format=FORMAT, source=self.label)
        if parent is not None or string(mine.get("parent_id")):  # a subagent's own file, read alone, names its parent
            session.parent_id = parent.id if parent is not None else mine["parent_id"]
            session.relation = "fork" if mine.get("relation") == "fork" else "subagent"
        self._head(session, document, mine)
        children = self._children(session, document, depth)
        # replay-site's own export says what each step was; other writers' context steps are folded
        exported = bool(mine.get("format"))
        steps = self._steps(session, document.get("steps"), children, exported, depth)
        _check_costs(session, steps, mapping(document.get("final_metrics")), list(children.values()))
        session.steps = steps + self._continued(session, document, depth, children)
        session.children = list(children.values())
        session.number_steps()
        if not session.title:
            session.title = first_request(user_prompts(session.steps)) or session.id
        times = [step.timestamp for step in session.steps if step.timestamp]
        session.started_at = session.started_at or (min(times) if times else None)
        session.ended_at = session.ended_at or (max(times) if times else None)
        return session

    def _head(self, session: Session, document: dict[str, Any], mine: dict[str, Any]) -> None:
        agent = mapping(document.get("agent"))
        session.agent_version = string(agent.get("version"))
        if string(agent.get("model_name")):
            session.declared_models = [agent["model_name"]]
        declared = mine.get("declared_models")
        if isinstance(declared, list) and all(isinstance(model, str) for model in declared):
            session.declared_models = declared
        if string(agent.get("name")):
            session.facts.append(Fact("Agent", agent["name"]))
        if string(document.get("schema_version")):
            session.facts.append(Fact("ATIF version", document["schema_version"]))
        if string(mine.get("format")):
            session.facts.append(Fact("Exported from", mine["format"]))
        elif string(document.get("notes")):
            session.facts.append(Fact("Notes", document["notes"]))
        for key in ("title", "cwd", "git_branch", "git_commit", "project", "status", "outcome"):
            if string(mine.get(key)):
                setattr(session, key, mine[key])
        session.started_at, session.ended_at = parse_time(mine.get("started_at")), parse_time(mine.get("ended_at"))
        session.local_time = mine.get("local_time") is True
        for fact in listed(mine.get("facts")):
            if isinstance(fact, list) and len(fact) == 2:
                session.facts.append(Fact(text(fact[0]), text(fact[1])))
        for pr in listed(mine.get("pull_requests")):
            if isinstance(pr, list) and len(pr) == 3 and string(pr[0]):
                session.pull_requests.append(PullRequest(pr[0], pr[1] if isinstance(pr[1], int) else None, string(pr[2])))
        final = mapping(document.get("final_metrics"))
        if final and not any(isinstance(step, dict) and step.get("metrics") for step in listed(document.get("steps"))):
            # Totals with no step to carry them: shown, never invented into steps.
            session.facts.append(Fact("Final metrics (not per step)", raw_json(final)))

    def _children(self, session: Session, document: dict[str, Any], depth: int) -> dict[str, Session]:
        found: dict[str, Session] = {}
        for index, embedded in enumerate(listed(document.get("subagent_trajectories")), start=1):
            if not isinstance(embedded, dict):
                session.warn("warning", f"subagent trajectory {index} is not an object, skipped")
                continue
            if depth >= MAX_DEPTH:
                session.warn("warning", f"subagent trajectories nested deeper than {MAX_DEPTH}: not read")
                break
            child = self.session(embedded, f"{session.id}:{index}", depth + 1, session)
            found.setdefault(child.id, child)
        # a site's trajectory (build --atif) names its subagents' files, in order, linked to a call or not
        for ref in listed(ours(document).get("subagent_files")):
            path = string(mapping(ref).get("trajectory_path"))
            child = self._from_file(path, depth, session) if path else None
            if child is not None:
                found.setdefault(child.id, child)
        return found

    def _continued(self, session: Session, document: dict[str, Any], depth: int, children: dict[str, Session]) -> list[Step]:
        """The steps of the trajectory this one continues in (after a summarization), when that
        file is part of the source; else a note naming it."""
        ref = string(document.get("continued_trajectory_ref"))
        if ref is None:
            return []
        continued = self._from_file(ref, depth, None)
        if continued is None:
            return [Step(kind="event", title="continued in another trajectory", text=f"Continued in `{ref}` (not found beside this file).")]
        for child in continued.children:
            child.parent_id = session.id
            children.setdefault(child.id, child)
        session.problems.extend(continued.problems)
        for fate, kinds in continued.records.items():
            for kind, lines in kinds.items():
                session.count_record(kind, fate, lines)
        marker = Step(kind="context", title="continued trajectory", text=f"Continued in `{ref}`.", collapsed=True)
        return [marker, *continued.steps]

    def _steps(self, session: Session, raw: Any, children: dict[str, Session], exported: bool, depth: int) -> list[Step]:
        if not isinstance(raw, list):
            session.warn("warning", "no steps array: the trajectory has no steps to show")
            return []
        steps = []
        for index, item in enumerate(raw, start=1):
            if not isinstance(item, dict):
                session.warn("bad_line", f"step {index} is not an object, skipped")
                continue
            steps.append(self._step(session, item, children, exported, depth))
        return steps

    def _step(self, session: Session, item: dict[str, Any], children: dict[str, Session], exported: bool, depth: int) -> Step:
        source = item.get("source")
        mine = ours(item)
        kind = mine.get("kind") if mine.get("kind") in KINDS else KIND_OF_SOURCE.get(source) if isinstance(source, str) else None
        if kind is None:
            session.warn("unknown_event", f"step {text(item.get('step_id'))}: unknown source {text(source)!r}, shown as a raw step")
            session.count_record(f"step:{text(source)[:40]}", "unknown")
            return Step(kind="event", title=f"step from {text(source)[:40]!r}", details=[Detail("raw step", raw_json(item, indent=True), "json")])
        session.count_record(f"step:{source}")
        message, images = _content(item.get("message"))
        when = (parse_time if session.local_time else utc_time)(item.get("timestamp"))
        step = Step(kind=kind, timestamp=when, model=string(item.get("model_name")),
                    text=message, thinking=text(item.get("reasoning_content")), images=images)
        copied = item.get("is_copied_context") is True
        step.collapsed = mine.get("collapsed") is True if exported else kind == "context" or copied
        if copied and not exported:
            step.title = "copied context"
        self._restore(step, mine)
        calls = [(_call(call), string(call.get("tool_call_id"))) for call in listed(item.get("tool_calls")) if isinstance(call, dict)]
        step.tool_calls = [call for call, _ in calls]
        wire_ids = {wire: call for call, wire in calls if wire}
        restored = list(step.child_session_ids)
        self._observe(session, step, mapping(item.get("observation")), children, wire_ids, depth)
        if exported:  # the step's own links as its reader made them, whatever its calls link
            step.child_session_ids = restored
        step.usage, step.cost = _metrics(mapping(item.get("metrics")))
        if step.usage is not None and mine.get("usage_partial") is True:  # the producer's log left it incomplete
            step.usage.partial = True
        others = {key: value for key, value in mapping(item.get("extra")).items() if key != EXTRA}
        if others:
            step.details.append(Detail("ATIF extra", raw_json(others, indent=True), "json"))
        return step

    def _restore(self, step: Step, mine: dict[str, Any]) -> None:
        for key in ("title", "error", "checkpoint"):
            if string(mine.get(key)):
                setattr(step, key, mine[key])
        step.duration_s = number(mine.get("duration_s"))
        step.reward, step.cumulative_reward = _measure(mine.get("reward")), _measure(mine.get("cumulative_reward"))
        step.memory_notes = [note for note in listed(mine.get("memory_notes")) if isinstance(note, str)]
        step.variables = [Variable(text(v[0]), text(v[1]), text(v[2]), v[3] is True)
                          for v in listed(mine.get("variables")) if isinstance(v, list) and len(v) == 4]
        step.details = [Detail(text(d[0]), text(d[1]), string(d[2])) for d in listed(mine.get("details")) if isinstance(d, list) and len(d) == 3]
        step.images.extend(_images(mine.get("images")))
        step.child_session_ids = [ident for ident in listed(mine.get("child_session_ids")) if isinstance(ident, str)]
        step.tier = {key: value for key, value in mapping(mine.get("tier")).items() if isinstance(key, str) and isinstance(value, str)}

    def _observe(self, session: Session, step: Step, observation: dict[str, Any], children: dict[str, Session],
                 by_id: dict[str, ToolCall], depth: int) -> None:
        """Each result given to the call whose tool_call_id it names (as written: an id
        replay-site made up for a call without one is not the call's id). Results naming no
        call (Harbor's terminus-2 and mini-swe-agent write one, the terminal after the step's
        commands) answer the step's calls left: one each, in order, when there are as many;
        else they are the step's one observation, shown after its calls, which it answers."""
        answered: set[int] = set()
        unnamed = []
        for result in listed(observation.get("results")):
            if not isinstance(result, dict):
                continue
            ident = string(result.get("source_call_id"))
            call = by_id.get(ident) if ident else None
            if call is None and ident is None:
                unnamed.append(result)
                continue
            if call is None:  # a result naming no call of this step: shown, never dropped
                call = ToolCall(name="observation", id=ident, orphan=True)
                step.tool_calls.append(call)
            answered.add(id(call))
            self._result(session, step, call, result, children, depth)
        left = [call for call in step.tool_calls if id(call) not in answered and not call.orphan]
        paired = list(zip(left, unnamed)) if len(left) == len(unnamed) else []
        for call, result in paired:
            answered.add(id(call))
            self._result(session, step, call, result, children, depth)
        if unnamed and not paired:
            answered.update(id(call) for call in left)  # the observation answers them together
            for result in unnamed:
                call = ToolCall(name="observation", orphan=True)
                step.tool_calls.append(call)
                self._result(session, step, call, result, children, depth)
        mark_unanswered(step.tool_calls, answered)

    def _result(self, session: Session, step: Step, call: ToolCall, result: dict[str, Any], children: dict[str, Session],
                depth: int) -> None:
        """One observation result given to `call`: its content, failure and subagents."""
        output, images = _content(result.get("content"))
        if result.get("content") is not None:
            call.output = (call.output + "\n" + output) if call.output else output
        call.images.extend(images)
        extra = mapping(result.get("extra"))
        status = extra.get("status")
        call.is_error = call.is_error or extra.get("is_error") is True or (isinstance(status, str) and status.lower() in _FAILED_STATUS)
        if isinstance(extra.get("exit_code"), int) and not isinstance(extra.get("exit_code"), bool):
            call.exit_code = extra["exit_code"]
        for ref in listed(result.get("subagent_trajectory_ref")):
            self._link(session, step, call, mapping(ref), children, depth)

    def _link(self, session: Session, step: Step, call: ToolCall, ref: dict[str, Any], children: dict[str, Session], depth: int) -> None:
        """A delegated subagent: the embedded child it names, or the file it points at."""
        ident = string(ref.get("trajectory_id")) or string(ref.get("session_id"))
        child = children.get(ident) if ident else None
        path = string(ref.get("trajectory_path"))
        if child is None and path:
            child = self._from_file(path, depth, session)
            if child is not None:
                child = children.setdefault(child.id, child)
        if child is None:
            if ident or path:
                call.output = call.output or f"Subagent trajectory {ident or path} (not found in this source)."
            return
        call.child_session_id = child.id
        if child.id not in step.child_session_ids:
            step.child_session_ids.append(child.id)


def _call(raw: dict[str, Any]) -> ToolCall:
    mine = ours(raw)
    arguments = raw.get("arguments")
    call = ToolCall(name=string(raw.get("function_name")) or "?", id=None if mine.get("no_id") is True else string(raw.get("tool_call_id")),
                    arguments=None if mine.get("no_arguments") is True else mine["arguments"] if "arguments" in mine
                    else arguments if isinstance(arguments, (dict, str)) else None)
    call.code, call.language, call.url = string(mine.get("code")), string(mine.get("language")), string(mine.get("url"))
    call.duration_s = number(mine.get("duration_s"))
    call.orphan = mine.get("orphan") is True
    call.changes = [FileChange(text(c.get("path")), c.get("kind") if c.get("kind") in CHANGE_KINDS else "modify", text(c.get("diff")), string(c.get("new_path")))
                    for c in listed(mine.get("changes")) if isinstance(c, dict)]
    call.images = _images(mine.get("images"))
    call.todos = [TodoItem(text(t[0]), text(t[1])) for t in listed(mine.get("todos")) if isinstance(t, list) and len(t) == 2]
    call.missing_result = mine.get("missing_result") is True  # replay-site's own export: no result came
    extra = {key: value for key, value in mapping(raw.get("extra")).items() if key != EXTRA}
    if extra and isinstance(call.arguments, dict):
        call.arguments = {**call.arguments, "(extra)": extra}
    return call


def _check_costs(session: Session, steps: list[Step], final: dict[str, Any], children: list[Session]) -> None:
    """The steps' cost_usd against the trajectory's own total. Where they disagree (Harbor's
    mini-swe-agent trajectories: the steps' add up to about three times final_metrics'), the
    steps' are not what was billed: they are left out (the steps are priced from their tokens
    as any unpriced step) and the total is shown beside, with a warning naming both."""
    total = number(final.get("total_cost_usd"))
    logged = [step for step in steps if step.cost is not None and step.cost.source == "log"]
    if total is None or not math.isfinite(total) or not logged:
        return
    summed = sum(step.cost.usd or 0.0 for step in logged)
    below = sum(step.cost.usd or 0.0 for child in children for each in child.walk() for step in each.steps
                if step.cost is not None and step.cost.source == "log")
    if any(abs(figure - total) <= max(1e-6, total * 0.01) for figure in (summed, summed + below)):  # with its subagents' or not
        return
    for step in logged:
        step.cost = None
    session.facts.append(Fact("Cost in final_metrics", f"${total:.4f}"))
    session.warn("warning", f"the steps' cost_usd add up to ${summed:.4f}, final_metrics.total_cost_usd says ${total:.4f}: "
                            "the steps' costs are left out and the steps priced from their tokens")


def _metrics(metrics: dict[str, Any]) -> tuple[Usage | None, Cost | None]:
    extra = mapping(metrics.get("extra"))
    # litellm's usage details, where Harbor's mini-swe-agent converter keeps the cache counts
    prompt_details, completion_details = mapping(extra.get("prompt_tokens_details")), mapping(extra.get("completion_tokens_details"))
    prompt = count(metrics.get("prompt_tokens"))
    cached = count(metrics.get("cached_tokens")) if "cached_tokens" in metrics else count(prompt_details.get("cached_tokens"))
    written = count(extra.get("cache_creation_input_tokens")) or count(prompt_details.get("cache_creation_tokens"))
    hour = min(written, count(mapping(extra.get(EXTRA)).get("cache_write_1h")))
    reasoning = count(extra.get("reasoning_tokens")) or count(completion_details.get("reasoning_tokens"))
    usage = Usage(input=max(0, prompt - cached - written), output=count(metrics.get("completion_tokens")), cache_read=cached,
                  cache_write_5m=written - hour, cache_write_1h=hour, reasoning=reasoning)
    usd = number(metrics.get("cost_usd"))
    cost = Cost(usd, "log") if usd is not None and math.isfinite(usd) and usd >= 0 else None
    return (usage if usage else None), cost


def _content(value: Any) -> tuple[str, list[Image]]:
    """A message or result: a string, or (v1.6+) an array of content parts (text, image, audio)."""
    if value is None:
        return "", []
    if isinstance(value, str):
        return value, []
    if not isinstance(value, list):
        return text(value), []
    texts, images = [], []
    for part in value:
        part = mapping(part)
        source = mapping(part.get("source"))
        where = text(source.get("path"))
        if part.get("type") == "text":
            texts.append(text(part.get("text")))
        elif part.get("type") == "image" and where.startswith("data:") and ";base64," in where:
            images.append(Image(where[5:].split(";", 1)[0], where.split(";base64,", 1)[1]))
        else:
            texts.append(f"[{text(part.get('type')) or 'part'}: {where or raw_json(part)}]")
    return "\n".join(texts), images


def _images(value: Any) -> list[Image]:
    return [Image(text(i[0]), text(i[1])) for i in listed(value) if isinstance(i, list) and len(i) == 2]


def _measure(value: Any) -> float | None:
    if isinstance(value, str):
        try:
            return float(value)  # "nan", "inf": what JSON cannot hold as a number
        except ValueError:
            return None
    return number(value)


