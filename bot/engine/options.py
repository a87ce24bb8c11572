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


def check_options(config: Config) -> Config:
    """``config`` when every rule and option it sets is known and valid; else the error."""
    known = {r.id: r for r in all_rules()}
    for rule_id, entry in (config.section("rules")).items():
        rule = known.get(rule_id)
        if rule is None:
            raise config.fail(("rules", rule_id), f"unknown rule {rule_id!r}")
        for key, value in (entry or {}).items():
            if key in RESERVED:
                continue
            where = ("rules", rule_id, key)
            option = rule.option(key)
            if option is None:
                names = ", ".join(o.name for o in rule.options) or "none"
                raise config.fail(
                    where, f"unknown option {key!r} of rule {rule_id} (options: {names})")
            if not option.accepts(value):
                raise config.fail(where, f"option {key!r} of rule {rule_id} takes a {option.type}")
            if isinstance(value, float) and not math.isfinite(value):
                raise config.fail(where, f"option {key!r} of rule {rule_id} takes a finite number")
            if not option.in_range(value):
                raise config.fail(where, f"option {key!r} of rule {rule_id} must be "
                                         f"{option.range_text} (got {value!r})")
            if option.schema is not None:
                for problem in Validator(option.schema).problems(value):
                    raise config.fail((*where, *problem.path), problem.message)
    return config
