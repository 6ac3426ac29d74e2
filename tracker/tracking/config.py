"""The tracker's settings (``TrackerConfig``), every one checked when the config is built."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from calibration.specs import SNOOKER, SnookerTableSpec


@dataclass(frozen=True)
class TrackerConfig:
    """Tracker parameters; every one is checked when the config is built.

    Measurement model: a ball at rest is detected with ``rest_sigma_mm`` noise per axis, a moving
    one with ``moving_sigma_mm`` plus its blur: over a shutter of ``exposure_s`` a ball at speed
    v draws a streak v * exposure_s long whose centre the detector reports, half a streak behind
    the ball at the frame's time, less sure along the streak by ``streak_sigma_fraction`` of its
    length. When ``table_to_image`` (the calibration's 3x3 homography from table mm to image
    px, as 9 numbers row by row) is given, every detection also carries ``detection_sigma_px``
    of noise in the image, mapped onto the table where it is: under a steep broadcast view one
    pixel along the table is several millimetres at the far end.
    """

    rest_sigma_mm: float = 1.0
    moving_sigma_mm: float = 3.0
    exposure_s: float = 0.0
    streak_sigma_fraction: float = 0.1
    # Random walk of a resting ball's estimate (mm per sqrt(s)): lets it follow a nudge while
    # averaging the detection noise over ~1 s.
    rest_walk_mm: float = 0.05
    # White-noise acceleration of a moving ball (mm/s^2): sliding friction (~2 m/s^2), swerve,
    # and the smaller deflections; collisions and cushions are caught by the second pass.
    accel_sigma_mm_s2: float = 3000.0
    # Deceleration of a coasting ball (mm/s^2): rolling resistance mu_roll * g ~ 0.01 * 9810.
    coast_decel_mm_s2: float = 100.0
    # Chi-square (2 dof) gate of the first pass; 16 leaves out 1 in 3000 true detections.
    gate_chi2: float = 16.0
    # A resting ball whose detection is this far (chi-square) from it twice running, or beyond
    # ``launch_chi2`` once, has been set moving.
    restless_chi2: float = 9.0
    launch_chi2: float = 36.0
    # A moving ball this far (chi-square) from its prediction was kicked: its filter restarts.
    kick_chi2: float = 12.0
    # mm/s: the fastest ball (a break-off is ~8 m/s); bounds the second pass's reach.
    max_speed_mm_s: float = 12000.0
    # s: a track missed for at most this long may take a far detection in the second pass.
    launch_window_s: float = 0.1
    # mm: a ball at rest other than the white is set moving only by a moving ball whose path
    # since the last frame came this near it (a ball diameter and some slack).
    kick_reach_mm: float = 80.0
    # Margin on speeds from estimates (factor) and on how far a struck ball can have gone (mm).
    kick_slack: float = 1.5
    kick_slack_mm: float = 30.0
    # What an assignment may cost beyond the gate before leaving the track unmatched is the
    # better explanation (a confident detection of another class costs ~10).
    unmatched_cost: float = 4.0
    # mm/s: uncertainty of the velocity of a ball just set moving.
    launch_speed_sigma_mm_s: float = 700.0
    # Weight of the class evidence in the cost (2: two confident mismatches, as when two balls
    # of different colours would swap tracks, cost more than leaving both unmatched), and the
    # least likelihood a class mismatch gets.
    class_weight: float = 2.0
    class_floor: float = 0.002
    # A resting ball's estimate is re-opened when its recent innovations average more than this.
    rest_shift_mm: float = 1.2
    # A moving ball slower than rest_speed_mm_s for rest_after_s is at rest.
    rest_speed_mm_s: float = 20.0
    rest_after_s: float = 0.2
    # A track whose class votes (confidences, halved every vote_half_life_s so that what it
    # follows now counts) favour another class this many times over, and by at least
    # relabel_votes, takes that class's id.
    relabel_ratio: float = 3.0
    relabel_votes: float = 5.0
    vote_half_life_s: float = 2.0
    # A candidate becomes a ball after confirm_hits detections within confirm_window frames;
    # a moving one after confirm_hits_moving (a chain hopping along a row of the rack, one
    # missed ball after another, looks like a ball moving one spacing a frame).
    confirm_hits: int = 3
    confirm_hits_moving: int = 5
    confirm_window: int = 5
    # A candidate may be this far (mm) from where its velocity puts it, and one seen once may
    # have moved at up to candidate_speed_mm_s; nearer detections are preferred.
    candidate_gate_mm: float = 25.0
    candidate_speed_mm_s: float = 4000.0
    # s: a moving ball unseen this long is decided: potted, off the table or hidden.
    gone_after_s: float = 0.15
    # mm: the fall circle must lie within this much travel of where the ball vanished, and the
    # ball's path must pass within its radius plus pot_margin_mm.
    pot_reach_mm: float = 300.0
    pot_margin_mm: float = 25.0
    # A ball at rest that vanishes as a moving ball reaches it was struck too fast to be seen
    # (a blurred streak): unseen for struck_gone_s it is potted in the pocket it was sent at,
    # the direction being the striker's loss of momentum (equal masses), good to
    # struck_angle_deg. Only a collision seen to deflect the striker counts, and only a ball
    # sent at struck_min_speed_mm_s or more (over a ball diameter a frame at 30 fps: a faint
    # streak); a slower ball that vanishes was hidden.
    struck_gone_s: float = 0.4
    struck_angle_deg: float = 25.0
    struck_min_speed_mm_s: float = 1500.0
    # mm: a ball that vanished away from the pockets and would have been this far past where a
    # cushion stops it by the next frame has left the table (flown over the cushion).
    off_edge_mm: float = 20.0
    # Ball diameters: two tracks whose centres are nearer than this follow one ball (two balls
    # cannot overlap; a blurred ball is often detected twice, at both ends of its streak), and
    # the one that vanishes was the double: it is hidden, never potted or off the table.
    double_frac: float = 0.85
    # Ball diameters: detections nearer each other than this are one ball seen twice.
    merge_frac: float = 0.6
    # s: a ball unseen this long may have been struck while hidden and turn up anywhere.
    lost_after_s: float = 0.5
    # s: the white, moving when it went unseen and seen again this soon, may have turned
    # meanwhile (a kiss while its blob was one with the other ball's, a cushion).
    turn_window_s: float = 0.2
    # mm: largest position uncertainty a coasting ball keeps (std).
    max_sigma_mm: float = 600.0
    # How many reds the frame was racked with (ids red_01 .. red_NN).
    reds: int = 15
    # px: the detector's noise in the image, and the view that maps it onto the table (None:
    # no image noise, the mm sigmas alone).
    detection_sigma_px: float = 1.5
    table_to_image: tuple[float, ...] | None = None
    table: SnookerTableSpec = field(default=SNOOKER)

    def __post_init__(self):
        non_negative = ("exposure_s", "streak_sigma_fraction", "unmatched_cost", "kick_slack_mm",
                        "coast_decel_mm_s2", "class_weight", "rest_after_s", "pot_margin_mm",
                        "off_edge_mm", "detection_sigma_px")
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "table_to_image":
                if v is not None:
                    h = np.asarray(v, float)
                    if h.size != 9 or not np.isfinite(h).all() or abs(np.linalg.det(
                            h.reshape(3, 3))) < 1e-12:
                        raise ValueError("TrackerConfig.table_to_image must be 9 finite numbers "
                                         f"of an invertible homography, got {v!r}")
                    object.__setattr__(self, f.name, tuple(float(x) for x in h.ravel()))
                continue
            if f.name == "table":
                if not isinstance(v, SnookerTableSpec):
                    raise TypeError(f"TrackerConfig.table must be a SnookerTableSpec, "
                                    f"got {type(v).__name__}")
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"TrackerConfig.{f.name} must be a finite number, got {v!r}")
            if f.name in non_negative:
                if v < 0:
                    raise ValueError(f"TrackerConfig.{f.name} must be >= 0, got {v!r}")
            elif v <= 0:
                raise ValueError(f"TrackerConfig.{f.name} must be > 0, got {v!r}")
        for name in ("confirm_hits", "confirm_hits_moving", "confirm_window", "reds"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"TrackerConfig.{name} must be an integer >= 1, "
                                 f"got {getattr(self, name)!r}")
        if not self.confirm_hits <= min(self.confirm_window, self.confirm_hits_moving):
            raise ValueError(f"TrackerConfig.confirm_hits ({self.confirm_hits}) must not exceed "
                             f"confirm_window ({self.confirm_window}) or confirm_hits_moving "
                             f"({self.confirm_hits_moving})")
        if self.reds > 15:
            raise ValueError(f"TrackerConfig.reds must be at most 15, got {self.reds}")
        if not self.restless_chi2 <= self.gate_chi2 <= self.launch_chi2:
            raise ValueError("TrackerConfig needs restless_chi2 <= gate_chi2 <= launch_chi2, got "
                             f"{self.restless_chi2}, {self.gate_chi2}, {self.launch_chi2}")
        if self.kick_chi2 > self.gate_chi2:
            raise ValueError(f"TrackerConfig.kick_chi2 ({self.kick_chi2}) must not exceed "
                             f"gate_chi2 ({self.gate_chi2})")
        if self.relabel_ratio <= 1:
            raise ValueError(f"TrackerConfig.relabel_ratio must be > 1, got {self.relabel_ratio}")
        if self.class_floor >= 1:
            raise ValueError(f"TrackerConfig.class_floor must be < 1, got {self.class_floor}")
