"""The games cueball knows, each as one small description the stages and commands take.

A ``Game`` says what is particular to a game: its table (dimensions and markings), its ball set,
its rules engine and how its records are read. The stages take the table and the ball set from
it, the commands the referee; a new game is a new entry in ``GAMES``, not a fork of the stages.

    from tracker.game import game
    referee = game("9ball").referee()          # feed(record) -> result dict
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from calibration.errors import InputError


class Referee(Protocol):
    """A rules engine with its state held: each record in, the rules' answer out."""

    def feed(self, record: Any) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Game:
    """One game: ``name`` as the command line says it; ``rules`` the rule map in docs/;
    ``new_referee(variant)`` a fresh rules engine (``variant`` a name of the game's rule
    variants, or None for its default); ``parse_record(dict)`` a record of its shot records,
    checked (ValueError/TypeError naming the field); ``eyes()`` its table spec and ball set
    (classes), where the camera side of the game is built (None where it is not yet: the
    referee alone then), made when asked for (they need numpy, the referee does not)."""

    name: str
    rules: str
    new_referee: Callable[[str | None], Referee]
    parse_record: Callable[[Mapping[str, Any]], Any]
    variants: tuple[str, ...] = ()
    eyes: Callable[[], tuple[Any, tuple[str, ...]]] | None = None

    def referee(self, variant: str | None = None) -> Referee:
        """A fresh rules engine; an unknown variant is an InputError naming the known ones."""
        if variant is not None and variant not in self.variants:
            known = ", ".join(self.variants) or "none"
            raise InputError(f"{self.name} has no rule variant {variant!r} (known: {known})")
        return self.new_referee(variant)

    @property
    def tracked(self) -> bool:
        """Whether the camera side of the game is built (``cueball track`` follows it)."""
        return self.eyes is not None

    @property
    def table(self) -> Any:
        """The table spec (mm), or None where the camera side is not built."""
        return None if self.eyes is None else self.eyes()[0]

    @property
    def ball_classes(self) -> tuple[str, ...] | None:
        """The ball set's classes, or None where the camera side is not built."""
        return None if self.eyes is None else self.eyes()[1]


def _snooker_eyes() -> tuple[Any, tuple[str, ...]]:
    from calibration.specs import BALL_CLASSES, SNOOKER

    return SNOOKER, tuple(BALL_CLASSES)


def _snooker() -> Game:
    from tracker.rules import snooker
    from tracker.rules.records import parse_record

    return Game("snooker", "docs/RULES.md", lambda variant: snooker.Referee(), parse_record,
                eyes=_snooker_eyes)


def _shootout() -> Game:
    from tracker.rules import shootout

    return Game("shootout", "docs/RULES.md", lambda variant: shootout.Referee(),
                shootout.parse_record, eyes=_snooker_eyes)


def _pool(name: str) -> Game:
    from tracker.rules.pool import VARIANTS, Referee, parse_record

    return Game(name, "docs/POOL_RULES.md", lambda variant: Referee(name, variant),
                parse_record, variants=tuple(VARIANTS))


# name -> how to make its description (made on first use: the referee alone needs no numpy)
GAMES: dict[str, Callable[[], Game]] = {
    "snooker": _snooker,
    "8ball": lambda: _pool("8ball"),
    "9ball": lambda: _pool("9ball"),
    "10ball": lambda: _pool("10ball"),
    "14.1": lambda: _pool("14.1"),
    "shootout": _shootout,
}


def game(name: str) -> Game:
    """The game called ``name``; an unknown one is an InputError naming the known ones."""
    make = GAMES.get(name)
    if make is None:
        raise InputError(f"unknown game {name!r} (known: {', '.join(GAMES)})")
    return make()
