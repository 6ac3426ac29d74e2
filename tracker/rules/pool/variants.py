"""Rule variants as data: the WPA World Standardized Rules, seed 004's text where it differs,
and common house rules. One name picks a ``Variant``; ``rules`` overrides single fields.
Every result names the variant it was judged under."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

IN_HAND = ("anywhere", "kitchen")
EIGHT_ON_BREAK = ("spot_or_rerack", "wins", "rerack")


@dataclass(frozen=True)
class Variant:
    """One rule set. Fields:

    ``in_hand``: where the cue ball goes after a foul: "anywhere" (WPA Fouls: cue ball in hand;
    seed 004 I.21(c)) or "kitchen" (behind the head string, a house rule);
    ``three_foul``: three consecutive fouls lose the rack (9-ball, 10-ball) or cost 15 more
    points (14.1) (seed 004 I.19; WPA Three Consecutive Fouls); ``three_foul_8ball``: the same
    in 8-ball (seed 004 I.19(c): not in 8-ball);
    ``auto_warning``: the result's warning on two fouls counts as given (else only a
    ``warning`` record gives it; seed 004 I.19: without the warning the third foul is a
    second);
    ``eight_on_break``: 8-ball's 8 pocketed on the break: "spot_or_rerack" (WPA 8-Ball "8-Ball
    Pocketed on the Break"), "wins" or "rerack" (house rules);
    ``scratch_on_eight_loses``: a scratch while shooting at the 8 loses (house rule);
    ``last_pocket``: the 8 must go in the pocket of the player's last group ball (house rule);
    ``respot_jumped``: object balls off the table go back on the foot spot (seed 004 I.17,
    I.23.2(a): not the opponent's balls in 8-ball, only the 9 in 9-ball) instead of staying off
    (WPA: only the 8-ball game's 8 and the 9 or 10 come back);
    ``off_table_foul_14_1``: an object ball off the table is a foul in 14.1 too (WPA Fouls:
    Ball Driven off the Table); seed 004 I.18(e), I.23.2(a) except 14.1;
    ``rebreak_after_three_fouls``: "must" (WPA 14.1: the offender breaks a new rack) or
    "choice" (seed 004 I.19(a): the opponent may ask for it).
    """

    name: str
    in_hand: str = "anywhere"
    three_foul: bool = True
    three_foul_8ball: bool = False
    auto_warning: bool = True
    eight_on_break: str = "spot_or_rerack"
    scratch_on_eight_loses: bool = False
    last_pocket: bool = False
    respot_jumped: bool = False
    off_table_foul_14_1: bool = True
    rebreak_after_three_fouls: str = "must"

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


WPA = Variant("wpa")
VARIANTS = {
    "wpa": WPA,
    "seed004": replace(WPA, name="seed004", respot_jumped=True, off_table_foul_14_1=False,
                       rebreak_after_three_fouls="choice"),
    "bar": replace(WPA, name="bar", in_hand="kitchen", three_foul=False,
                   eight_on_break="wins", scratch_on_eight_loses=True),
    "last_pocket": replace(WPA, name="last_pocket", last_pocket=True),
}

_CHOICES = {"in_hand": IN_HAND, "eight_on_break": EIGHT_ON_BREAK,
            "rebreak_after_three_fouls": ("must", "choice")}


def variant(name: str | None = None, overrides: Iterable[tuple[str, Any]] = ()) -> Variant:
    """The named variant ("wpa" when None) with ``overrides`` applied; ValueError names a bad
    name, field or value."""
    name = name or "wpa"
    if name not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {name!r}")
    v = VARIANTS[name]
    kinds = {f.name: type(getattr(v, f.name)) for f in fields(v) if f.name != "name"}
    changes = {}
    for k, val in overrides:
        if k not in kinds:
            raise ValueError(f"rules.{k} is no variant field (expected one of "
                             f"{', '.join(kinds)})")
        if type(val) is not kinds[k] or (k in _CHOICES and val not in _CHOICES[k]):
            allowed = _CHOICES.get(k, "true or false")
            raise ValueError(f"rules.{k} must be {allowed}, got {val!r}")
        changes[k] = val
    if changes:
        v = replace(v, name=f"{name}+" + ",".join(sorted(changes)), **changes)
    return v
