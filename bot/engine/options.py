"""The rules' options in a configuration, checked beside the registry that knows them.

:mod:`reviewbot.config` reads a ``.reviewbot.yaml`` and checks what it knows (the config
schema, the inventory); this module checks ``rules:`` against the rules' typed ``OPTIONS``:
an unknown rule or option, a value of the wrong type, not finite, out of range or refused by
the option's schema is an error that names the key and its line (exit 2).
"""

from __future__ import annotations

import math

from reviewbot.config import RESERVED, Config
from reviewbot.engine.registry import all_rules
from reviewbot.schema.validate import Validator
from reviewbot.words import closest

LEVELS = ("error", "warning", "info")  # the severities a configuration may set


def check_options(config: Config) -> Config:
    """``config`` when every rule and option it sets is known and valid; else one error that
    names every bad key (a line each)."""
    known = {r.id: r for r in all_rules()}
    problems: list[tuple[tuple[str | int, ...], str]] = []
    for rule_id, entry in (config.section("rules")).items():
        rule = known.get(rule_id)
        if rule is None:
            problems.append((("rules", rule_id), f"unknown rule {rule_id!r}"))
            continue
        for key, value in (entry or {}).items():
            if key == "severity" and isinstance(value, dict):
                for check, level in value.items():
                    if check not in rule.severities:
                        checks = ", ".join(sorted(rule.severities)) or "none"
                        near = closest(str(check), list(rule.severities))
                        problems.append(((("rules", rule_id, key, check)),
                                         f"unknown check {check!r} of rule {rule_id}"
                                         + (f" (did you mean {near}?)" if near else "")
                                         + f" (checks: {checks})"))
                    elif level not in LEVELS:
                        problems.append(((("rules", rule_id, key, check)),
                                         f"expected one of {', '.join(LEVELS)} (the severity "
                                         f"of check {check})"))
            if key in RESERVED:
                continue
            where = ("rules", rule_id, key)
            option = rule.option(key)
            if option is None:
                names = ", ".join(o.name for o in rule.options) or "none"
                problems.append(
                    (where, f"unknown option {key!r} of rule {rule_id} (options: {names})"))
            elif not option.accepts(value):
                problems.append((where, f"option {key!r} of rule {rule_id} takes a {option.type}"))
            elif isinstance(value, float) and not math.isfinite(value):
                problems.append((where, f"option {key!r} of rule {rule_id} takes a finite number"))
            elif not option.in_range(value):
                problems.append((where, f"option {key!r} of rule {rule_id} must be "
                                        f"{option.range_text} (got {value!r})"))
            elif option.schema is not None:
                problems += [((*where, *problem.path), problem.message)
                             for problem in Validator(option.schema).problems(value)]
    if problems:
        raise config.fail_all(problems)
    return config
