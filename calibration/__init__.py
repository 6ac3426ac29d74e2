"""Table geometry, camera models and calibration between image pixels and table millimetres."""

from calibration.errors import InputError
from calibration.specs import SNOOKER, SnookerTableSpec

__all__ = ["InputError", "SNOOKER", "SnookerTableSpec"]
